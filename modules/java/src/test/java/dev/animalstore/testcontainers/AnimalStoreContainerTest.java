package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/** One sandbox for the class, a fresh namespace for each test: the tests cannot see each other's writes. */
@DockerTest
class AnimalStoreContainerTest {

    private static final String API_KEY = "container-test-key";

    private static final int SEEDED_PETS = 30;

    private static final ObjectMapper JSON = new ObjectMapper();

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer()
        .withApiKey(API_KEY)
        .withAdminToken("container-test-admin")
        .withSeed(7)
        .withSeedCount(SEEDED_PETS)
        .withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void startsHealthyAndTellsWhereAndHowToCallIt() throws Exception {
        HttpResponse<String> health = new ApiClient(SANDBOX.getOrigin(), Map.of()).get("/healthz");
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(SANDBOX.getBaseUrl()).isEqualTo("http://" + SANDBOX.getHost() + ":" + SANDBOX.getMappedPort(4010) + "/v1");
        assertThat(SANDBOX.getApiKey()).isEqualTo(API_KEY);
        assertThat(SANDBOX.getAdminToken()).isEqualTo("container-test-admin");
        assertThat(SANDBOX.getControlClient().exportPets()).as("the seeded pets").hasSize(SEEDED_PETS);
    }

    @Test
    void namespacesDoNotSeeEachOthersWrites(NamespaceControl first, NamespaceControl second) throws Exception {
        assertThat(first.name()).isNotEqualTo(second.name());
        long id = JSON.readTree(createPet(first, "Only In First").body()).get("id").asLong();

        assertThat(api(first).get("/pets/" + id).statusCode()).isEqualTo(200);
        assertThat(api(second).get("/pets/" + id).statusCode()).isEqualTo(404);
        assertThat(second.exportPets().findValuesAsText("name")).doesNotContain("Only In First");
    }

    private static ApiClient api(NamespaceControl namespace) {
        return new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
    }

    private static HttpResponse<String> createPet(NamespaceControl namespace, String name) throws Exception {
        return api(namespace).post("/pets", JSON.writeValueAsString(Map.of("name", name, "categoryId", 1, "status", "available")));
    }
}
