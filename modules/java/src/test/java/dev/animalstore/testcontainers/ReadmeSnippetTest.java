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
 * The README's Java blocks are code that runs against the real image, in order: SandboxExampleTest, the coverage
 * assertions of CoverageAndVerifyTest, and the end-of-suite check that SuiteCheckTest runs, file by file, with its
 * junit-platform.properties. They must not drift.
 */
class ReadmeSnippetTest {

    private static final Path README = Path.of("README.md");

    private static final Path TESTS = Path.of("src/test/java/dev/animalstore/testcontainers");

    private static final Path SUITE_CHECK = TESTS.resolve("suitecheck");

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);

    private static final Pattern PROPERTIES_BLOCK = Pattern.compile("```properties\n(.*?)```", Pattern.DOTALL);

    /** Marks the lines the test needs and a reader does not. */
    private static final String TEST_ONLY = "// test only";

    @Test
    void readmeExamplesAreTheTests() throws IOException {
        List<String> blocks = JAVA_BLOCK.matcher(Files.readString(README)).results().map(block -> block.group(1)).toList();
        assertThat(blocks)
            .as("the ```java blocks of " + README)
            .containsExactly(
                snippet(TESTS.resolve("SandboxExampleTest.java"), "// README snippet"),
                snippet(TESTS.resolve("CoverageAndVerifyTest.java"), "// README coverage snippet"),
                snippet(TESTS.resolve("CoverageAndVerifyTest.java"), "// README trace snippet"),
                wholeFile(SUITE_CHECK.resolve("SuiteSandbox.java")),
                wholeFile(SUITE_CHECK.resolve("OrdersTest.java")),
                wholeFile(SUITE_CHECK.resolve("SuiteCoverageCheckTest.java"))
            );
        assertThat(PROPERTIES_BLOCK.matcher(Files.readString(README)).results().map(block -> block.group(1)).toList())
            .as("the ```properties blocks of " + README)
            .containsExactly(Files.readString(Path.of("src/test/resources/suitecheck/junit-platform.properties")));
    }

    /** A test file without the lines marked test only (its package: the README's files are in the default one). */
    private static String wholeFile(Path file) throws IOException {
        return Files.readAllLines(file).stream().filter(line -> !line.contains(TEST_ONLY)).map(line -> line + "\n").collect(Collectors.joining());
    }

    /**
     * The lines of a test file between {@code <marker> begins} and {@code <marker> ends}, without the lines marked test
     * only, and as indented as the marker is less indented.
     */
    private static String snippet(Path file, String marker) throws IOException {
        List<String> lines = Files.readAllLines(file);
        int begin = indexOfLineStartingWith(lines, marker + " begins", file);
        int end = indexOfLineStartingWith(lines, marker + " ends", file);
        int indent = lines.get(begin).indexOf(marker);
        return lines
            .subList(begin + 1, end)
            .stream()
            .filter(line -> !line.contains(TEST_ONLY))
            .map(line -> line.substring(Math.min(indent, line.length() - line.stripLeading().length())) + "\n")
            .collect(Collectors.joining());
    }

    private static int indexOfLineStartingWith(List<String> lines, String prefix, Path file) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).stripLeading().startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with \"" + prefix + "\" in " + file);
    }
}
