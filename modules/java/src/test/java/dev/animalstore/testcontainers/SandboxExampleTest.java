package dev.animalstore.testcontainers;

// README snippet begins: ReadmeSnippetTest keeps the README's example the same as this, lines marked "test only" aside.
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith; // test only
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

@ExtendWith(DockerRequirement.class) // test only: skipped without Docker, failed under REQUIRE_DOCKER=1
@Testcontainers
class SandboxExampleTest {

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withSeed(7).withApiKey("test-key");

    // Each NamespaceControl parameter is a fresh namespace, deleted after the test: the tests share the container, not their data.
    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void retriesWhenTheStoreIsUnavailable(NamespaceControl namespace) throws Exception {
        namespace.addFault(Map.of("operationId", "listPets", "status", 503, "times", 1));

        HttpRequest.Builder listPets = HttpRequest.newBuilder(URI.create(SANDBOX.getBaseUrl() + "/pets?limit=5"));
        namespace.apiHeaders().forEach(listPets::header); // Authorization and X-Sandbox-Namespace
        assertEquals(503, http.send(listPets.build(), BodyHandlers.ofString()).statusCode());
        assertEquals(200, http.send(listPets.build(), BodyHandlers.ofString()).statusCode());
    }
}
// README snippet ends.
