package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's Java fragments are code of AnimalStoreContainerTest, AnimalStoreContainerTlsTest, AnimalStoreAwaitTest and AnimalStoreBundlesTest, which run against
 * the real image: they must not drift. Its whole classes (the example, the end-of-suite check) are run from the README
 * itself by the repository's test/container/consumers.test.ts, in a project of their own.
 */
class ReadmeSnippetTest {

    private static final Path TESTS = Path.of("src/test/java/dev/animalstore/testcontainers");

    private static final Path TEST = TESTS.resolve("AnimalStoreContainerTest.java");

    private static final Path TLS_TEST = TESTS.resolve("AnimalStoreContainerTlsTest.java");

    private static final Path AWAIT_TEST = TESTS.resolve("AnimalStoreAwaitTest.java");

    private static final Path BUNDLES_TEST = TESTS.resolve("junit/AnimalStoreBundlesTest.java");

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);

    @Test
    void readmeFragmentsAreTheTests() throws IOException {
        List<String> fragments = JAVA_BLOCK
            .matcher(Files.readString(Path.of("README.md")))
            .results()
            .map(block -> block.group(1))
            .filter(code -> !code.contains("class "))
            .toList();
        assertThat(fragments).as("the README's ```java fragments").containsExactly(
            snippet(TLS_TEST, "// README https snippet"),
            snippet(TEST, "// README coverage snippet"),
            snippet(TEST, "// README trace snippet"),
            snippet(AWAIT_TEST, "// README await snippet"),
            snippet(BUNDLES_TEST, "// README bundles snippet")
        );
    }

    /**
     * The lines of the test between {@code <marker> begins} and {@code <marker> ends}, without the lines marked
     * {@code // test only}, and as indented as the marker is less indented.
     */
    private static String snippet(Path test, String marker) throws IOException {
        List<String> lines = Files.readAllLines(test);
        List<String> markers = lines.stream().map(String::strip).toList();
        int begin = markers.indexOf(marker + " begins");
        int end = markers.indexOf(marker + " ends");
        assertThat(begin).as(marker + " in " + test).isNotNegative().isLessThan(end);
        int indent = lines.get(begin).indexOf(marker);
        return lines
            .subList(begin + 1, end)
            .stream()
            .filter(line -> !line.contains("// test only"))
            .map(line -> line.substring(Math.min(indent, line.length() - line.stripLeading().length())) + "\n")
            .collect(Collectors.joining());
    }
}
