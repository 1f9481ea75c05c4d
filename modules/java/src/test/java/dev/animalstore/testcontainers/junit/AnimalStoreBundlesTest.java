package dev.animalstore.testcontainers.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.DockerTest;
import dev.animalstore.testcontainers.control.NamespaceControl;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.testcontainers.junit.jupiter.Container;

/**
 * A failing test of {@link TestsThatFail}, run through the JUnit Platform as Surefire runs a class, leaves its
 * namespace's bundle in the reports folder, a passing one none; the sandbox's {@code replay} (built by {@code npm run
 * build} at the repository's root) gives every answer of that bundle again, the failing call's included.
 */
@DockerTest
class AnimalStoreBundlesTest {

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    private static final Path SANDBOX_CLI = Path.of(System.getProperty("basedir", "."), "..", "..", "dist", "cli.js").normalize();

    @Test
    void aFailingTestLeavesItsBundleWhichReplaysToTheSameAnswers(@TempDir Path reports) throws Exception {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create()
            .execute(
                LauncherDiscoveryRequestBuilder.request().selectors(selectClass(TestsThatFail.class)).configurationParameter(AnimalStoreBundles.FOLDER_PARAMETER, reports.toString()).build(),
                listener
            );
        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getTestsSucceededCount()).as("the tests that passed").isEqualTo(1);
        assertThat(summary.getTestsFailedCount()).as("the tests that failed").isEqualTo(1);

        Path bundle = reports.resolve(TestsThatFail.class.getName() + ".readsAMissingPet.bundle.json");
        try (Stream<Path> saved = Files.list(reports)) {
            assertThat(saved).as("the failing test's bundle alone").containsExactly(bundle);
        }
        JsonNode read = new ObjectMapper().readTree(bundle.toFile());
        assertThat(read.get("format").asText()).isEqualTo("animal-store-sandbox.bundle");
        List<String> calls = new ArrayList<>();
        read.at("/journal/entries").forEach(entry -> calls.add(entry.get("operationId").asText() + " " + entry.get("status").asInt()));
        assertThat(calls).as("the test's calls, the failing one last").containsExactly("createPet 201", "getPet 404");

        assertThat(SANDBOX_CLI).as("the replay needs the sandbox built: npm run build at the repository's root").exists();
        Process replay = new ProcessBuilder("node", SANDBOX_CLI.toString(), "replay", bundle.toString()).redirectErrorStream(true).start();
        String output = new String(replay.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(replay.waitFor(2, TimeUnit.MINUTES)).as("the replay ends").isTrue();
        assertThat(replay.exitValue()).as("replay finds every answer as recorded: %s", output).isZero();
        assertThat(output).contains("Replayed 2 of 2 requests");
    }

    /** The suite run above: one test passes, one fails. */
    static class TestsThatFail {

        // README bundles snippet begins
        @RegisterExtension
        static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

        @RegisterExtension
        static final AnimalStoreBundles BUNDLES = new AnimalStoreBundles(SANDBOX::getControlClient);
        // README bundles snippet ends

        /** As a team's test sends its calls: Java's client asks each plain-HTTP call to upgrade to h2c, which the bundle records. */
        private static final HttpClient HTTP = HttpClient.newHttpClient();

        @Test
        void listsPets(NamespaceControl namespace) throws Exception {
            assertThat(call(namespace, "GET", "/pets", null)).isEqualTo(200);
        }

        @Test
        void readsAMissingPet(NamespaceControl namespace) throws Exception {
            assertThat(call(namespace, "POST", "/pets", "{\"name\":\"Tortoise\",\"categoryId\":1}")).isEqualTo(201);
            assertThat(call(namespace, "GET", "/pets/999999", null)).as("the pet the test expects is not there").isEqualTo(200);
        }

        private static int call(NamespaceControl namespace, String method, String path, String json) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(SANDBOX.getBaseUrl() + path))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
            namespace.apiHeaders().forEach(request::header);
            if (json != null) {
                request.header("Content-Type", "application/json");
            }
            return HTTP.send(request.build(), BodyHandlers.discarding()).statusCode();
        }
    }
}
