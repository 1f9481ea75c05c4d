package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.AnimalStoreControlException;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.SandboxAssertions;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.URI;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/**
 * One sandbox for the class, a fresh namespace for each test: the tests cannot see each other's writes. Every
 * operation of the control client (ControlClientSpecTest holds it to the spec) runs once against it: what it sends is
 * taken, and its answer reads; what the answers mean is the sandbox's, tested in its own suite (test/control).
 */
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
        assertThat(new ApiClient(SANDBOX.getOrigin(), Map.of()).get("/healthz").statusCode()).isEqualTo(200);
        assertThat(SANDBOX.getBaseUrl()).isEqualTo("http://" + SANDBOX.getHost() + ":" + SANDBOX.getMappedPort(4010) + "/v1");
        assertThat(SANDBOX.getApiKey()).isEqualTo(API_KEY);
        assertThat(SANDBOX.getAdminToken()).isEqualTo("container-test-admin");
        assertThat(SANDBOX.getControlClient().exportPets()).as("the seeded pets").hasSize(SEEDED_PETS);
    }

    @Test
    void namespacesDoNotSeeEachOthersWrites(NamespaceControl first, NamespaceControl second) throws Exception {
        assertThat(first.name()).isNotEqualTo(second.name());
        String pet = JSON.writeValueAsString(Map.of("name", "Only In First", "categoryId", 1, "status", "available"));
        long id = JSON.readTree(api(first).post("/pets", pet).body()).get("id").asLong();

        assertThat(api(first).get("/pets/" + id).statusCode()).isEqualTo(200);
        assertThat(api(second).get("/pets/" + id).statusCode()).isEqualTo(404);
        assertThat(second.exportPets().findValuesAsText("name")).doesNotContain("Only In First");
    }

    @Test
    void everyOperationSendsWhatTheSandboxTakes(NamespaceControl namespace, NamespaceControl other) throws Exception {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        String name = namespace.name();
        assertThat(namespace.reset(Map.of("seed", 3, "count", 4)).get("pets").asInt()).isEqualTo(4);
        JsonNode pets = namespace.exportPets();
        assertThat(namespace.replacePets(List.of(pets.get(0), pets.get(1))).get("pets").asInt()).isEqualTo(2);

        for (String path : List.of("/pets?limit=5", "/pets/1", "/nowhere")) {
            api(namespace).get(path);
        }
        // Each request is in the journal before its answer reaches the client.
        assertThat(namespace.countRequests(Map.of())).isEqualTo(3);
        Map<String, Object> filters = Map.of("method", "get", "path", "/v1/pets", "operationId", "listPets", "status", 200,
            "since", Instant.now().minusSeconds(3600), "limit", 1);
        assertThat(namespace.listRequests(filters).at("/entries/0/query/limit").asText()).isEqualTo("5");
        JsonNode first = namespace.listRequests(Map.of("limit", 2));
        assertThat(namespace.listRequests(Map.of("after", first.get("next"))).get("entries")).hasSize(1);
        assertThat(namespace.listUnmatchedRequests(Map.of("limit", 5)).at("/entries/0/path").asText()).isEqualTo("/v1/nowhere");

        assertThat(namespace.getCoverageMarkdown(Map.of())).startsWith("# API coverage: namespace `" + name + "`");
        JsonNode verified = namespace.verify(Map.of(), Map.of("strict", true, "expectations", List.of(
            Map.of("operationId", "listPets", "count", 1, "headers", Map.of(NamespaceControl.NAMESPACE_HEADER, name)),
            Map.of("operationId", "getPet", "min", 1, "max", 1), Map.of("operationId", "unmatched"))));
        assertThat(verified.get("passed").asBoolean()).as(verified.path("message").asText()).isTrue();
        assertThat(namespace.getDrift().get("mode").asText()).isEqualTo("off");
        JsonNode pact = namespace.exportPact(Map.of("consumer", "checkout", "provider", "store"));
        assertThat(List.of(pact.at("/consumer/name").asText(), pact.at("/provider/name").asText())).containsExactly("checkout", "store");
        assertThat(namespace.clearRequests().get("cleared").asInt()).isEqualTo(3);

        JsonNode fault = namespace.addFault(Map.of("operationId", "listPets", "status", 503, "times", 1));
        assertThat(namespace.listFaults().get("faults").findValues("id")).containsExactly(fault.get("id"));
        assertThat(namespace.clearFaults().get("cleared").asInt()).isEqualTo(1);

        Instant frozenAt = Instant.parse("2029-06-01T12:00:00Z");
        assertThat(Instant.parse(namespace.setClock(frozenAt).get("now").asText())).isBetween(frozenAt, frozenAt.plusSeconds(60));
        assertThat(namespace.getClock().get("real").asBoolean()).isFalse();
        JsonNode snapshot = namespace.createSnapshot(name);
        assertThat(List.of(snapshot.get("namespace").asText(), snapshot.get("pets").asText())).containsExactly(name, "2");
        assertThat(namespace.resetClock().get("real").asBoolean()).isTrue();
        assertThat(other.reset(Map.of("snapshot", name)).get("pets").asInt()).isEqualTo(2);
        assertThat(client.listSnapshots().get("snapshots").findValues("forks")).contains(JSON.valueToTree(List.of(other.name())));

        assertThat(client.listNamespaces().get("namespaces").findValuesAsText("name")).contains(name, other.name());
        assertThat(client.deleteNamespace(other.name()).get("deleted").asBoolean()).isTrue();
        assertThat(client.deleteSnapshot(name).get("deleted").asBoolean()).isTrue();
        assertThatThrownBy(client::getTlsCa)
            .as("served over plain HTTP: no CA was made")
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(404));
    }

    @Test
    void aClientOfAnySandboxUrlCarriesARefusalsStatusAndErrorBody() {
        AnimalStoreControlClient byUrl = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin() + "/"), SANDBOX.getAdminToken(), API_KEY);
        NamespaceControl namespace = byUrl.namespace("by-url");
        assertThat(namespace.apiHeaders()).containsOnly(Map.entry("Authorization", "Bearer " + API_KEY), Map.entry(NamespaceControl.NAMESPACE_HEADER, "by-url"));
        assertThat(byUrl.apiHeaders()).as("the default namespace needs no header").containsOnlyKeys("Authorization");
        assertThatThrownBy(() -> namespace.addFault(Map.of("operationId", "noSuchOperation", "status", 500)))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(List.of(refused.status(), refused.code())).containsExactly(400, "invalid_body");
                assertThat(refused.errorMessage()).contains("operationId");
                assertThat(refused.getMessage()).startsWith("POST /__admin/faults?namespace=by-url answered 400 invalid_body: ");
            });
        AnimalStoreControlClient wrongToken = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin()), "not-the-token", API_KEY);
        assertThatThrownBy(wrongToken::listNamespaces)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(List.of(refused.status(), refused.code())).containsExactly(401, "unauthorized"));
    }

    @Test
    void assertionsPassWhenSatisfied(NamespaceControl namespace) throws Exception {
        assertThat(api(namespace).get("/pets").statusCode()).isEqualTo(200);
        assertThat(api(namespace).get("/pets/1").statusCode()).isEqualTo(200);
        assertThat(api(namespace).get("/pets/987654").statusCode()).isEqualTo(404);
        Map<String, String> wrongKey = Map.of("Authorization", "Bearer wrong-key", NamespaceControl.NAMESPACE_HEADER, namespace.name());
        assertThat(new ApiClient(SANDBOX.getBaseUrl(), wrongKey).get("/pets/1").statusCode()).isEqualTo(401);

        // README coverage snippet begins
        namespace.assertAllResponsesExercised("getPet"); // every operation when none is named
        namespace.assertVerifiedStrictly(Map.of("operationId", "listPets", "count", 1), Map.of("operationId", "getPet", "min", 3));
        // README coverage snippet ends
        assertThatThrownBy(namespace::assertNoDeprecatedCalls).hasMessageContaining("getPet (GET /v1/pets/{petId}): 3 calls");
    }

    @Test
    void aSuiteThatCausedEveryReachableResponseOfCreatePetPassesTheCheck(NamespaceControl namespace) throws Exception {
        assertThat(api(namespace).post("/pets", "{\"name\":\"Rex\",\"categoryId\":3}").statusCode()).isEqualTo(201);
        assertThat(api(namespace).post("/pets", "{\"categoryId\":3}").statusCode()).isEqualTo(400);
        // The sandbox's words, the same as the TypeScript client raises (test/control/client-assertions.test.ts).
        assertThatThrownBy(() -> namespace.assertAllResponsesExercised("createPet"))
            .isInstanceOf(AssertionError.class)
            .hasMessage("createPet (POST /v1/pets), namespace " + namespace.name() + ": never exercised 401");
        Map<String, String> wrongKey = Map.of("Authorization", "Bearer wrong-key", NamespaceControl.NAMESPACE_HEADER, namespace.name());
        assertThat(new ApiClient(SANDBOX.getBaseUrl(), wrongKey).post("/pets", "{}").statusCode()).isEqualTo(401);

        // No malformed JSON, no forced 400: a conforming client causes neither, and the check asks for neither.
        namespace.assertAllResponsesExercised("createPet");
        JsonNode createPet = namespace.getCoverage().get("operations").valueStream()
            .filter(operation -> operation.get("operationId").asText().equals("createPet"))
            .findFirst()
            .orElseThrow();
        List<String> left = createPet.get("responses").valueStream()
            .filter(response -> !response.get("exercised").asBoolean())
            .map(response -> response.get("label").asText() + " reachable=" + response.get("reachable").asBoolean())
            .toList();
        assertThat(left).containsExactly("400 malformed_json reachable=false", "400 bad_request reachable=false");
    }

    @Test
    void readsOneTraceOfTheNamespace(NamespaceControl namespace) throws Exception {
        // README trace snippet begins
        String traceId = UUID.randomUUID().toString().replace("-", "");
        String parentId = UUID.randomUUID().toString().replace("-", "").substring(16);
        Map<String, String> headers = Map.of(
            "baggage", "sandbox.namespace=" + namespace.name(),
            "traceparent", "00-" + traceId + "-" + parentId + "-01"
        );
        // the test's call to the service under test, with these headers, which the service passes on
        Map<String, String> service = new LinkedHashMap<>(headers); // test only
        service.put("Authorization", "Bearer " + API_KEY); // test only
        assertThat(new ApiClient(SANDBOX.getBaseUrl(), service).post("/pets", "{\"name\":\"Traced\",\"categoryId\":1}").statusCode()).isEqualTo(201); // test only

        assertThat(namespace.countRequests(Map.of("traceId", traceId))).isEqualTo(1);
        JsonNode verified = namespace.verify(Map.of("traceId", traceId), Map.of("strict", true, "expectations", List.of(Map.of("operationId", "createPet", "count", 1))));
        SandboxAssertions.assertPassed(verified);
        JsonNode report = namespace.getCoverage(Map.of("traceId", traceId)); // what this call exercised, whatever else the namespace got
        // README trace snippet ends
        assertThat(report.at("/summary/calls").asInt()).isEqualTo(1);
    }

    private static ApiClient api(NamespaceControl namespace) {
        return new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
    }
}
