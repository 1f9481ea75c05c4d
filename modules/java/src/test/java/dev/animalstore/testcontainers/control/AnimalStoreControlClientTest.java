package dev.animalstore.testcontainers.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.DockerTest;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/**
 * Every operation of the client (ControlClientSpecTest holds it to the spec) once against the sandbox: what it sends is
 * taken, and its answer reads. What the answers mean is the sandbox's, tested in its own suite (test/control).
 */
@DockerTest
class AnimalStoreControlClientTest {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void everyOperationSendsWhatTheSandboxTakes(NamespaceControl namespace, NamespaceControl other) throws Exception {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        String name = namespace.name();
        assertThat(namespace.reset(Map.of("seed", 3, "count", 4)).get("pets").asInt()).isEqualTo(4);
        JsonNode pets = namespace.exportPets();
        assertThat(pets).hasSize(4);
        assertThat(namespace.replacePets(List.of(pets.get(0), pets.get(1))).get("pets").asInt()).isEqualTo(2);

        for (String path : List.of("/pets?limit=5", "/pets/1", "/nowhere")) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(SANDBOX.getBaseUrl() + path));
            namespace.apiHeaders().forEach(request::header);
            HTTP.send(request.build(), HttpResponse.BodyHandlers.discarding());
        }
        // Each request is in the journal before its answer reaches the client.
        assertThat(namespace.countRequests(Map.of())).isEqualTo(3);
        Map<String, Object> filters = Map.of("method", "get", "path", "/v1/pets", "operationId", "listPets", "status", 200,
            "since", Instant.now().minusSeconds(3600), "limit", 1);
        assertThat(namespace.listRequests(filters).at("/entries/0/query/limit").asText()).isEqualTo("5");
        JsonNode first = namespace.listRequests(Map.of("limit", 2));
        assertThat(namespace.listRequests(Map.of("after", first.get("next"))).get("entries")).hasSize(1);
        assertThat(namespace.streamRequests(Map.of())).as("every page").hasSize(3);
        assertThat(namespace.countRequests(Map.of("traceId", "0af7651916cd43dd8448eb211c80319c"))).isZero();
        assertThat(namespace.listUnmatchedRequests(Map.of("limit", 5)).at("/entries/0/path").asText()).isEqualTo("/v1/nowhere");

        assertThat(namespace.getCoverage().at("/summary/calls").asInt()).isEqualTo(3);
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
        assertThat(client.listSnapshots().get("snapshots").valueStream().filter(s -> s.get("name").asText().equals(name)).findFirst().orElseThrow().get("forks").valueStream().map(JsonNode::asText))
            .containsExactly(other.name());

        assertThat(client.listNamespaces().get("namespaces").findValuesAsText("name")).contains(name, other.name());
        assertThat(client.deleteNamespace(other.name()).get("deleted").asBoolean()).isTrue();
        assertThat(client.deleteSnapshot(name).get("deleted").asBoolean()).isTrue();
    }

    @Test
    void aRefusalCarriesTheStatusAndTheErrorBody(NamespaceControl namespace) {
        assertThatThrownBy(() -> namespace.addFault(Map.of("operationId", "noSuchOperation", "status", 500)))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(List.of(refused.status(), refused.code())).containsExactly(400, "invalid_body");
                assertThat(refused.errorMessage()).contains("operationId");
                assertThat(refused.getMessage()).startsWith("POST /__admin/faults?namespace=" + namespace.name() + " answered 400 invalid_body: ");
            });
        AnimalStoreControlClient wrongToken = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin()), "not-the-token", SANDBOX.getApiKey());
        assertThatThrownBy(wrongToken::listNamespaces)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(List.of(refused.status(), refused.code())).containsExactly(401, "unauthorized"));
    }

    @Test
    void worksAgainstAnySandboxUrl() {
        // A sandbox known only by its URL, its admin token and a key.
        AnimalStoreControlClient byUrl = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin() + "/"), SANDBOX.getAdminToken(), SANDBOX.getApiKey());
        assertThat(byUrl.namespace("by-url").reset().get("namespace").asText()).isEqualTo("by-url");
        assertThat(byUrl.namespace("by-url").apiHeaders())
            .containsOnly(Map.entry("Authorization", "Bearer " + SANDBOX.getApiKey()), Map.entry(NamespaceControl.NAMESPACE_HEADER, "by-url"));
        assertThat(byUrl.apiHeaders()).as("the default namespace needs no header").containsOnlyKeys("Authorization");
    }
}
