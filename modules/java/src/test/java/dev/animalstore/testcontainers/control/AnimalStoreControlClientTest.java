package dev.animalstore.testcontainers.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.DockerTest;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/** Every control operation against a real sandbox, each test in a namespace of its own. */
@DockerTest
class AnimalStoreControlClientTest {

    /** A bound on reading the journal until it holds what a test expects (it holds a call before its answer). */
    private static final Duration JOURNAL_DELAY_BOUND = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void deletesANamespaceAfterWhichReadingItIsA404(NamespaceControl namespace) throws Exception {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        assertThat(client.deleteNamespace(namespace.name())).isEqualTo(json("{\"namespace\":\"" + namespace.name() + "\",\"deleted\":true}"));
        assertThatThrownBy(namespace::exportPets)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, error -> assertThat(error.status()).isEqualTo(404));
        assertThatThrownBy(() -> client.deleteNamespace(namespace.name()))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, error -> assertThat(error.status()).isEqualTo(404));
    }

    @Test
    void resetsToGeneratedPetsAndExportsThem(NamespaceControl namespace) throws Exception {
        assertThat(namespace.reset(Map.of("seed", 3, "count", 4))).isEqualTo(summary(namespace, 4));
        JsonNode generated = namespace.exportPets();
        assertThat(generated.findValuesAsText("id")).containsExactly("1", "2", "3", "4");

        namespace.reset(Map.of("seed", 3, "count", 4));
        assertThat(namespace.exportPets()).as("the same seed, the same pets").isEqualTo(generated);
        assertThat(namespace.reset().get("pets").asInt()).as("the initial data").isEqualTo(SANDBOX.getControlClient().exportPets().size());
    }

    @Test
    void replacesPetsWholeOrNotAtAll(NamespaceControl namespace) throws Exception {
        String rex = "{\"id\":7,\"name\":\"Replaced Rex\",\"categoryId\":2,\"status\":\"pending\"}";
        assertThat(namespace.replacePets(json("[" + rex + ",{\"id\":9,\"name\":\"No Status\",\"categoryId\":3}]"))).isEqualTo(summary(namespace, 2));
        JsonNode stored = json("[" + rex + ",{\"id\":9,\"name\":\"No Status\",\"categoryId\":3,\"status\":\"available\"}]");
        assertThat(namespace.exportPets()).as("a status left out is the default one").isEqualTo(stored);

        List<Map<String, Object>> repeatedId = List.of(Map.of("id", 1, "name", "One", "categoryId", 1), Map.of("id", 1, "name", "Again", "categoryId", 1));
        assertThatThrownBy(() -> namespace.replacePets(repeatedId))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(400));
        assertThat(namespace.exportPets()).as("left as it was").isEqualTo(stored);
    }

    @Test
    void filtersAndClearsTheJournal(NamespaceControl namespace) throws Exception {
        Instant before = Instant.now().minusSeconds(1);
        callApi(namespace, "GET", "/pets/1");
        callApi(namespace, "GET", "/pets/987654");
        callApi(namespace, "GET", "/pets");
        await().atMost(JOURNAL_DELAY_BOUND).untilAsserted(() -> assertThat(namespace.countRequests(Map.of())).isEqualTo(3));

        assertThat(namespace.countRequests(Map.of("path", "/v1/pets/*"))).isEqualTo(2);
        assertThat(namespace.listRequests(Map.of("path", "/v1/pets/*", "status", 404)).get("entries").findValuesAsText("path"))
            .containsExactly("/v1/pets/987654");
        assertThat(namespace.countRequests(Map.of("method", "post"))).isZero();
        assertThat(namespace.countRequests(Map.of("since", before))).isEqualTo(3);
        assertThat(namespace.countRequests(Map.of("since", Instant.now().plusSeconds(60)))).isZero();

        assertThat(namespace.clearRequests()).isEqualTo(json("{\"namespace\":\"" + namespace.name() + "\",\"cleared\":3}"));
        assertThat(namespace.listRequests().get("entries")).isEmpty();
    }

    @Test
    void readsTheJournalAPageAtATime(NamespaceControl namespace) throws Exception {
        namespace.reset();
        // 130 reads of pet 1, one of pet 2 after every tenth: 143 getPets, 13 of them of pet 2.
        for (int i = 1; i <= 130; i++) {
            callApi(namespace, "GET", "/pets/1");
            if (i % 10 == 0) {
                callApi(namespace, "GET", "/pets/2");
            }
        }
        Map<String, String> getPets = Map.of("operationId", "getPet");

        JsonNode first = namespace.listRequests(getPets);
        assertThat(first.get("count").asInt()).as("the count of every match").isEqualTo(143);
        assertThat(first.get("entries")).as("the default page").hasSize(100);
        assertThat(first.get("next")).isEqualTo(first.at("/entries/99/id"));
        JsonNode second = namespace.listRequests(Map.of("operationId", "getPet", "after", first.get("next")));
        assertThat(second.get("count").asInt()).isEqualTo(143);
        assertThat(second.get("entries")).hasSize(43);
        assertThat(second.get("next").isNull()).as("the last page").isTrue();
        List<Long> ids = Stream.concat(first.get("entries").valueStream(), second.get("entries").valueStream()).map(entry -> entry.get("id").asLong()).toList();
        assertThat(ids).as("every entry once, oldest first").doesNotHaveDuplicates().isSorted().hasSize(143);

        JsonNode small = namespace.listRequests(Map.of("path", "/v1/pets/2", "limit", 5));
        assertThat(small.get("count").asInt()).isEqualTo(13);
        assertThat(small.get("entries")).hasSize(5);
        JsonNode countOnly = namespace.listRequests(Map.of("operationId", "getPet", "limit", 0));
        assertThat(List.of(countOnly.get("count").asInt(), countOnly.get("entries").size())).containsExactly(143, 0);

        assertThat(namespace.countRequests(getPets)).isEqualTo(143);
        assertThat(namespace.countRequests(Map.of("path", "/v1/pets/2"))).isEqualTo(13);
        assertThat(namespace.countRequests(Map.of("operationId", "createPet"))).isZero();
        assertThat(namespace.streamRequests(getPets).map(entry -> entry.get("id").asLong()).toList()).as("every page, streamed").isEqualTo(ids);

        for (int i = 0; i < 3; i++) {
            callApi(namespace, "GET", "/nowhere");
        }
        JsonNode unmatched = namespace.listUnmatchedRequests(Map.of("limit", 2));
        assertThat(unmatched.get("count").asInt()).isEqualTo(3);
        assertThat(unmatched.get("entries")).hasSize(2);
        assertThat(namespace.listUnmatchedRequests(Map.of("after", unmatched.get("next"))).get("entries")).hasSize(1);

        assertThatThrownBy(() -> namespace.listRequests(Map.of("operationId", "getPet", "limit", 1001)))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(400);
                assertThat(refused.getMessage()).contains("limit");
            });
    }

    @Test
    void listsTheRequestsNoOperationMatched(NamespaceControl namespace) throws Exception {
        // A request that matches no operation is not authenticated, so it cannot create a namespace: make it first.
        namespace.reset();
        assertThat(callApi(namespace, "GET", "/no-such-resource?tag=a&tag=b&single=c").statusCode()).isEqualTo(404);

        await().atMost(JOURNAL_DELAY_BOUND).untilAsserted(() -> assertThat(namespace.listUnmatchedRequests().get("count").asInt()).isEqualTo(1));
        JsonNode unmatched = namespace.listUnmatchedRequests().at("/entries/0");
        assertThat(unmatched.get("operationId").asText()).isEqualTo("unmatched");
        assertThat(unmatched.get("query")).isEqualTo(json("{\"tag\":[\"a\",\"b\"],\"single\":\"c\"}"));
    }

    @Test
    void armsListsAndClearsFaults(NamespaceControl namespace) throws Exception {
        JsonNode delayed = namespace.addFault(Map.of("operationId", "getPet", "delayMs", 1, "after", 1, "times", 2));
        JsonNode broken = namespace.addFault(Map.of("operationId", "listPets", "fault", "malformed-body"));
        assertThat(delayed.get("after").asInt()).isEqualTo(1);
        assertThat(broken.get("fault").asText()).isEqualTo("malformed-body");
        assertThat(broken.has("times")).as("every call").isFalse();

        String malformed = callApi(namespace, "GET", "/pets").body();
        assertThatThrownBy(() -> JSON.readTree(malformed)).isInstanceOf(JsonProcessingException.class);
        callApi(namespace, "GET", "/pets/1");
        callApi(namespace, "GET", "/pets/1");
        JsonNode faults = namespace.listFaults().get("faults");
        assertThat(faults.findValues("id")).containsExactly(delayed.get("id"), broken.get("id"));
        assertThat(faults.findValuesAsText("seen")).containsExactly("2", "1");
        assertThat(faults.findValuesAsText("fired")).containsExactly("1", "1");

        assertThat(namespace.clearFaults()).isEqualTo(json("{\"namespace\":\"" + namespace.name() + "\",\"cleared\":2}"));
        assertThat(namespace.listFaults().get("faults")).isEmpty();
        assertThat(JSON.readTree(callApi(namespace, "GET", "/pets").body()).isArray()).isTrue();
    }

    @Test
    void movesReadsAndResetsTheClock(NamespaceControl namespace) {
        assertThat(namespace.getClock().get("real").asBoolean()).isTrue();
        Instant moved = Instant.parse("2031-01-02T03:04:05Z");
        JsonNode set = namespace.setClock(moved);
        assertThat(set.get("namespace").asText()).isEqualTo(namespace.name());
        assertThat(set.get("real").asBoolean()).isFalse();
        JsonNode read = namespace.getClock();
        assertThat(read.get("real").asBoolean()).isFalse();
        assertThat(instant(read.get("now"))).as("it runs on from there").isBetween(moved, moved.plusSeconds(60));
        assertThat(SANDBOX.getControlClient().getClock().get("real").asBoolean()).as("the default namespace's clock").isTrue();

        JsonNode reset = namespace.resetClock();
        assertThat(reset.get("real").asBoolean()).isTrue();
        assertThat(instant(reset.get("now"))).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
    }

    @Test
    void listsTheNamespacesInUse(NamespaceControl namespace) {
        namespace.reset();
        JsonNode list = SANDBOX.getControlClient().listNamespaces();
        assertThat(list.get("max").asInt()).isPositive();
        assertThat(list.get("namespaces").findValuesAsText("name")).contains(namespace.name(), "default");
    }

    @Test
    void forksNamespacesFromASnapshotCopyOnWrite(NamespaceControl setup, NamespaceControl first, NamespaceControl second)
        throws Exception {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        JsonNode fixture = createPet(setup, "Snapshot Sam");
        Instant frozenAt = Instant.parse("2029-06-01T12:00:00Z");
        setup.setClock(frozenAt);
        JsonNode frozen = setup.exportPets();
        String name = setup.name(); // unique, as the namespace's name is: snapshots are the sandbox's, not a namespace's
        Map<String, String> fromSnapshot = Map.of("snapshot", name);

        JsonNode snapshot = setup.createSnapshot(name);
        assertThat(snapshot.get("name").asText()).isEqualTo(name);
        assertThat(snapshot.get("namespace").asText()).isEqualTo(setup.name());
        assertThat(snapshot.get("pets").asInt()).isEqualTo(frozen.size());
        assertThat(instant(snapshot.get("clock"))).as("the namespace's clock, running from where it was set").isBetween(frozenAt, frozenAt.plusSeconds(60));
        assertThat(snapshot.get("forks")).isEmpty();
        createPet(setup, "After the snapshot");

        assertThat(first.reset(fromSnapshot)).isEqualTo(summary(first, frozen.size()));
        assertThat(second.reset(fromSnapshot).get("pets").asInt()).isEqualTo(frozen.size());
        assertThat(first.exportPets()).as("the snapshot's pets, not what setup did since").isEqualTo(frozen).contains(fixture);
        assertThat(instant(first.getClock().get("now"))).as("the snapshot's clock").isBetween(frozenAt, frozenAt.plusSeconds(60));

        JsonNode onlyInFirst = createPet(first, "Only in first");
        assertThat(first.exportPets()).contains(onlyInFirst);
        assertThat(second.exportPets()).as("a fork's write is its own").isEqualTo(frozen);
        assertThat(first.reset(fromSnapshot).get("pets").asInt()).as("nor did it reach the snapshot").isEqualTo(frozen.size());
        assertThat(first.exportPets()).as("a reset returns the fork to the snapshot").isEqualTo(frozen);

        JsonNode listed = client.listSnapshots().get("snapshots").valueStream().filter(s -> s.get("name").asText().equals(name)).findFirst().orElseThrow();
        assertThat(listed.get("pets").asInt()).isEqualTo(frozen.size());
        assertThat(listed.get("forks").valueStream().map(JsonNode::asText)).containsExactlyInAnyOrder(first.name(), second.name());
        assertThatThrownBy(() -> client.deleteSnapshot(name))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(409);
                assertThat(refused.code()).isEqualTo("conflict");
                assertThat(refused.errorMessage()).contains(first.name(), second.name());
            });

        first.reset();
        client.deleteNamespace(second.name());
        assertThat(client.deleteSnapshot(name)).isEqualTo(json("{\"snapshot\":\"" + name + "\",\"deleted\":true}"));
        assertThat(client.listSnapshots().get("snapshots").findValuesAsText("name")).doesNotContain(name);
        assertThatThrownBy(() -> first.reset(fromSnapshot))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(404);
                assertThat(refused.code()).isEqualTo("not_found");
                assertThat(refused.errorMessage()).isEqualTo("No snapshot \"" + name + "\"");
            });
        assertThatThrownBy(() -> client.deleteSnapshot(name))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(404));
    }

    @Test
    void snapshotsTheDefaultNamespaceAndRefusesATakenName(NamespaceControl fork) {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        String name = fork.name(); // unique, and a snapshot's name never meets a namespace's
        JsonNode snapshot = client.createSnapshot(name);
        try {
            assertThat(snapshot.get("namespace").asText()).isEqualTo("default");
            assertThat(snapshot.get("clock").isNull()).as("the default namespace's clock follows real time").isTrue();
            assertThat(fork.reset(Map.of("snapshot", name)).get("pets").asInt()).isEqualTo(client.exportPets().size());
            assertThatThrownBy(() -> fork.createSnapshot(name))
                .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                    assertThat(refused.status()).isEqualTo(409);
                    assertThat(refused.code()).isEqualTo("conflict");
                });
            assertThatThrownBy(() -> fork.reset(Map.of("snapshot", name, "seed", 3)))
                .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(400));
        } finally {
            fork.reset();
            client.deleteSnapshot(name);
        }
    }

    @Test
    void refusalsCarryTheStatusCodeAndMessage(NamespaceControl namespace) {
        assertThatThrownBy(() -> namespace.addFault(Map.of("operationId", "noSuchOperation", "status", 500)))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(400);
                assertThat(refused.code()).isEqualTo("invalid_body");
                assertThat(refused.errorMessage()).contains("operationId");
                assertThat(refused.getMessage()).startsWith("POST /__admin/faults?namespace=" + namespace.name() + " answered 400 invalid_body: ");
            });

        AnimalStoreControlClient wrongToken = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin()), "not-the-token", SANDBOX.getApiKey());
        assertThatThrownBy(wrongToken::listNamespaces)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(401);
                assertThat(refused.code()).isEqualTo("unauthorized");
            });
        // The sandbox judges a namespace's name.
        assertThatThrownBy(() -> SANDBOX.getControlClient().namespace("no spaces").reset())
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(400));
    }

    @Test
    void worksAgainstAnySandboxUrl() {
        // Not the container's client: a sandbox known only by its URL, its admin token and a key.
        AnimalStoreControlClient byUrl = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin() + "/"), SANDBOX.getAdminToken(), SANDBOX.getApiKey());
        assertThat(byUrl.namespace("by-url").reset().get("namespace").asText()).isEqualTo("by-url");
        assertThat(byUrl.namespace("by-url").apiHeaders())
            .containsOnly(Map.entry("Authorization", "Bearer " + SANDBOX.getApiKey()), Map.entry(NamespaceControl.NAMESPACE_HEADER, "by-url"));
        assertThat(byUrl.apiHeaders()).as("the default namespace needs no header").containsOnlyKeys("Authorization");
    }

    private static HttpResponse<String> callApi(NamespaceControl namespace, String method, String path) throws Exception {
        HttpRequest.Builder request = HttpRequest
            .newBuilder(URI.create(SANDBOX.getBaseUrl() + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
        namespace.apiHeaders().forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JsonNode json(String text) throws JsonProcessingException {
        return JSON.readTree(text);
    }

    private static JsonNode summary(NamespaceControl namespace, int pets) throws JsonProcessingException {
        return json("{\"namespace\":\"" + namespace.name() + "\",\"pets\":" + pets + "}");
    }

    private static Instant instant(JsonNode time) {
        return Instant.parse(time.asText());
    }

    /** Creates a pet through the API, in the namespace. */
    private static JsonNode createPet(NamespaceControl namespace, String name) throws Exception {
        String pet = JSON.writeValueAsString(Map.of("name", name, "categoryId", 1));
        HttpRequest.Builder request = HttpRequest
            .newBuilder(URI.create(SANDBOX.getBaseUrl() + "/pets"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(pet));
        namespace.apiHeaders().forEach(request::header);
        HttpResponse<String> created = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return JSON.readTree(created.body());
    }
}
