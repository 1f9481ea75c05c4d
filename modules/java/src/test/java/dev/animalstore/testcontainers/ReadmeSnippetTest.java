package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The README's Java example is SandboxExampleTest, which runs against the real image: the two must not drift. */
class ReadmeSnippetTest {

    private static final Path README = Path.of("README.md");

    private static final Path EXAMPLE = Path.of("src/test/java/dev/animalstore/testcontainers/SandboxExampleTest.java");

    private static final Pattern JAVA_BLOCK = Pattern.compile("```java\n(.*?)```", Pattern.DOTALL);

    /** Marks the lines the test needs and a reader does not. */
    private static final String TEST_ONLY = "// test only";

    @Test
    void readmeExampleIsTheExampleTest() throws IOException {
        Matcher block = JAVA_BLOCK.matcher(Files.readString(README));
        assertThat(block.find()).as("a ```java block in " + README).isTrue();
        String readmeExample = block.group(1);
        assertThat(block.find()).as("only one ```java block in " + README).isFalse();

        assertThat(readmeExample).isEqualTo(exampleForReaders());
    }

    /** SandboxExampleTest between its README markers, without the lines marked test only. */
    private static String exampleForReaders() throws IOException {
        List<String> lines = Files.readAllLines(EXAMPLE);
        int begin = indexOfLineStartingWith(lines, "// README snippet begins");
        int end = indexOfLineStartingWith(lines, "// README snippet ends");
        return lines
            .subList(begin + 1, end)
            .stream()
            .filter(line -> !line.contains(TEST_ONLY))
            .map(line -> line + "\n")
            .collect(Collectors.joining());
    }

    private static int indexOfLineStartingWith(List<String> lines, String prefix) {
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith(prefix)) {
                return i;
            }
        }
        throw new AssertionError("no line starting with \"" + prefix + "\" in " + EXAMPLE);
    }
}
