package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/** One sandbox for the class, a fresh namespace for each test: the tests cannot see each other's writes. */
@DockerTest
class AnimalStoreContainerTest {

    private static final String API_KEY = "container-test-key";

    private static final int SEEDED_PETS = 30;

    /** A bound on reading the journal until it holds what a test expects (it holds a call before its answer). */
    private static final Duration JOURNAL_DELAY_BOUND = Duration.ofSeconds(5);

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
    }

    @Test
    void listsPetsForTheKeyAndRefusesCallsWithoutIt(NamespaceControl namespace) throws Exception {
        HttpResponse<String> keyed = api(namespace).get("/pets?limit=100");
        assertThat(keyed.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(keyed.body())).hasSize(SEEDED_PETS);

        HttpResponse<String> anonymous = new ApiClient(SANDBOX.getBaseUrl(), Map.of()).get("/pets");
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(JSON.readTree(anonymous.body()).get("status").asInt()).isEqualTo(401);
    }

    @Test
    void fetchesTheCreatedPet(NamespaceControl namespace) throws Exception {
        HttpResponse<String> created = createPet(namespace, "Module Mouse");
        assertThat(created.statusCode()).isEqualTo(201);
        JsonNode pet = JSON.readTree(created.body());
        assertThat(pet.get("id").asLong()).as("ids continue after the seeded pets").isEqualTo(SEEDED_PETS + 1);
        assertThat(created.headers().firstValue("Location")).hasValue("/v1/pets/" + pet.get("id").asLong());

        HttpResponse<String> fetched = api(namespace).get("/pets/" + pet.get("id").asLong());
        assertThat(fetched.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(fetched.body())).isEqualTo(pet);
    }

    @Test
    void resetRemovesWhatTheTestCreated(NamespaceControl namespace) throws Exception {
        long id = JSON.readTree(createPet(namespace, "Temporary Toad").body()).get("id").asLong();

        assertThat(namespace.reset().get("pets").asInt()).isEqualTo(SEEDED_PETS);

        assertThat(api(namespace).get("/pets/" + id).statusCode()).isEqualTo(404);
        assertThat(namespace.exportPets().findValuesAsText("name")).doesNotContain("Temporary Toad");
    }

    @Test
    void journalShowsTheCallsByOperation(NamespaceControl namespace) throws Exception {
        api(namespace).get("/pets");
        api(namespace).get("/pets?status=sold");
        createPet(namespace, "Journal Jay");

        await().atMost(JOURNAL_DELAY_BOUND).untilAsserted(() -> assertThat(namespace.listRequests().get("count").asInt()).isEqualTo(3));
        assertThat(namespace.countRequests(Map.of("operationId", "listPets"))).isEqualTo(2);
        JsonNode creations = namespace.listRequests(Map.of("operationId", "createPet")).get("entries");
        assertThat(creations).hasSize(1);
        JsonNode entry = creations.get(0);
        assertThat(entry.get("method").asText()).isEqualTo("POST");
        assertThat(entry.get("path").asText()).isEqualTo("/v1/pets");
        assertThat(entry.get("status").asInt()).isEqualTo(201);
        assertThat(entry.get("namespace").asText()).isEqualTo(namespace.name());
        assertThat(entry.at("/body/name").asText()).isEqualTo("Journal Jay");
        assertThat(entry.at("/headers/authorization").asText()).isEqualTo("Bearer [REDACTED]");
    }

    @Test
    void faultAnswersTheNextCallThenTheApiRecovers(NamespaceControl namespace) throws Exception {
        JsonNode armed = namespace.addFault(Map.of("operationId", "listPets", "status", 503, "times", 1));
        assertThat(armed.get("fired").asInt()).isZero();

        HttpResponse<String> faulted = api(namespace).get("/pets");
        assertThat(faulted.statusCode()).isEqualTo(503);
        assertThat(JSON.readTree(faulted.body()).get("status").asInt()).isEqualTo(503);
        assertThat(api(namespace).get("/pets").statusCode()).isEqualTo(200);
        assertThat(namespace.listFaults().at("/faults/0/fired").asInt()).isEqualTo(1);
    }

    @Test
    void clockPastTheSunsetRetiresGetPet(NamespaceControl namespace) throws Exception {
        assertThat(api(namespace).get("/pets/1").statusCode()).isEqualTo(200);

        Instant sunset = Instant.parse("2030-12-05T00:00:00Z");
        assertThat(namespace.setClock(sunset).get("real").asBoolean()).isFalse();
        assertThat(api(namespace).get("/pets/1").statusCode()).isEqualTo(410);

        assertThat(namespace.resetClock().get("real").asBoolean()).isTrue();
        assertThat(api(namespace).get("/pets/1").statusCode()).isEqualTo(200);
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
