package dev.animalstore.testcontainers.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.core.JsonProcessingException;
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
    void deletesANamespaceAfterWhichReadingItIsA404(NamespaceControl namespace) {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        assertThat(client.deleteNamespace(namespace.name())).isEqualTo(new Deleted(namespace.name(), true));
        assertThatThrownBy(namespace::exportPets)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, error -> assertThat(error.status()).isEqualTo(404));
        assertThatThrownBy(() -> client.deleteNamespace(namespace.name()))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, error -> assertThat(error.status()).isEqualTo(404));
    }

    @Test
    void resetsToGeneratedPetsAndExportsThem(NamespaceControl namespace) {
        assertThat(namespace.reset(ResetOptions.defaults().withSeed(3).withCount(4))).isEqualTo(new StateSummary(namespace.name(), 4));
        List<Pet> generated = namespace.exportPets();
        assertThat(generated).extracting(Pet::id).containsExactly(1L, 2L, 3L, 4L);

        namespace.reset(ResetOptions.defaults().withSeed(3).withCount(4));
        assertThat(namespace.exportPets()).as("the same seed, the same pets").isEqualTo(generated);
        assertThat(namespace.reset().pets()).as("the initial data").isEqualTo(SANDBOX.getControlClient().exportPets().size());
    }

    @Test
    void replacesPetsWholeOrNotAtAll(NamespaceControl namespace) {
        List<Pet> pets = List.of(new Pet(7, "Replaced Rex", 2, "pending"), new Pet(9, "No Status", 3, null));
        assertThat(namespace.replacePets(pets)).isEqualTo(new StateSummary(namespace.name(), 2));
        List<Pet> stored = List.of(pets.get(0), new Pet(9, "No Status", 3, "available"));
        assertThat(namespace.exportPets()).as("a status left out is the default one").isEqualTo(stored);

        List<Pet> repeatedId = List.of(new Pet(1, "One", 1, null), new Pet(1, "Again", 1, null));
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
        await().atMost(JOURNAL_DELAY_BOUND).untilAsserted(() -> assertThat(namespace.listRequests().count()).isEqualTo(3));

        assertThat(namespace.listRequests(RequestFilter.all().withPath("/v1/pets/*")).count()).isEqualTo(2);
        assertThat(namespace.listRequests(RequestFilter.all().withPath("/v1/pets/*").withStatus(404)).entries())
            .singleElement()
            .extracting(JournalEntry::path)
            .isEqualTo("/v1/pets/987654");
        assertThat(namespace.listRequests(RequestFilter.all().withMethod("post")).count()).isZero();
        assertThat(namespace.listRequests(RequestFilter.all().withSince(before)).count()).isEqualTo(3);
        assertThat(namespace.listRequests(RequestFilter.all().withSince(Instant.now().plusSeconds(60))).count()).isZero();

        assertThat(namespace.clearRequests()).isEqualTo(new Cleared(namespace.name(), 3));
        assertThat(namespace.listRequests().entries()).isEmpty();
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
        RequestFilter getPets = RequestFilter.all().withOperationId("getPet");

        JournalPage first = namespace.listRequests(getPets);
        assertThat(first.count()).as("the count of every match").isEqualTo(143);
        assertThat(first.entries()).as("the default page").hasSize(100);
        assertThat(first.next()).isEqualTo(first.entries().get(99).id());
        JournalPage second = namespace.listRequests(getPets, PageRequest.first().withAfter(first.next()));
        assertThat(second.count()).isEqualTo(143);
        assertThat(second.entries()).hasSize(43);
        assertThat(second.hasNext()).as("the last page").isFalse();
        List<Long> ids = java.util.stream.Stream.concat(first.entries().stream(), second.entries().stream()).map(JournalEntry::id).toList();
        assertThat(ids).as("every entry once, oldest first").doesNotHaveDuplicates().isSorted().hasSize(143);

        JournalPage small = namespace.listRequests(RequestFilter.all().withPath("/v1/pets/2"), PageRequest.first().withLimit(5));
        assertThat(small.count()).isEqualTo(13);
        assertThat(small.entries()).hasSize(5);
        assertThat(namespace.listRequests(getPets, PageRequest.first().withLimit(0))).isEqualTo(new JournalPage(143, List.of(), null));

        assertThat(namespace.countRequests(getPets)).isEqualTo(143);
        assertThat(namespace.countRequests(RequestFilter.all().withPath("/v1/pets/2"))).isEqualTo(13);
        assertThat(namespace.countRequests(RequestFilter.all().withOperationId("createPet"))).isZero();
        assertThat(namespace.streamRequests(getPets).map(JournalEntry::id).toList()).as("every page, streamed").isEqualTo(ids);

        for (int i = 0; i < 3; i++) {
            callApi(namespace, "GET", "/nowhere");
        }
        JournalPage unmatched = namespace.listUnmatchedRequests(PageRequest.first().withLimit(2));
        assertThat(unmatched.count()).isEqualTo(3);
        assertThat(unmatched.entries()).hasSize(2);
        assertThat(namespace.listUnmatchedRequests(PageRequest.first().withAfter(unmatched.next())).entries()).hasSize(1);

        assertThatThrownBy(() -> namespace.listRequests(getPets, PageRequest.first().withLimit(1001)))
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

        await().atMost(JOURNAL_DELAY_BOUND).untilAsserted(() -> assertThat(namespace.listUnmatchedRequests().count()).isEqualTo(1));
        JournalEntry unmatched = namespace.listUnmatchedRequests().entries().get(0);
        assertThat(unmatched.operationId()).isEqualTo("unmatched");
        assertThat(unmatched.query()).containsEntry("tag", List.of("a", "b")).containsEntry("single", List.of("c"));
    }

    @Test
    void armsListsAndClearsFaults(NamespaceControl namespace) throws Exception {
        Fault delayed = namespace.addFault(NewFault.on("getPet").withDelayMs(1).withAfter(1).withTimes(2));
        Fault broken = namespace.addFault(NewFault.on("listPets").withFault(FaultKind.MALFORMED_BODY));
        assertThat(delayed.after()).isEqualTo(1);
        assertThat(broken.fault()).isEqualTo(FaultKind.MALFORMED_BODY);
        assertThat(broken.times()).as("every call").isNull();

        String malformed = callApi(namespace, "GET", "/pets").body();
        assertThatThrownBy(() -> JSON.readTree(malformed)).isInstanceOf(JsonProcessingException.class);
        callApi(namespace, "GET", "/pets/1");
        callApi(namespace, "GET", "/pets/1");
        FaultList faults = namespace.listFaults();
        assertThat(faults.count()).isEqualTo(2);
        assertThat(faults.faults()).extracting(Fault::id).containsExactly(delayed.id(), broken.id());
        assertThat(faults.faults()).extracting(Fault::seen).containsExactly(2, 1);
        assertThat(faults.faults()).extracting(Fault::fired).containsExactly(1, 1);

        assertThat(namespace.clearFaults()).isEqualTo(new Cleared(namespace.name(), 2));
        assertThat(namespace.listFaults().faults()).isEmpty();
        assertThat(JSON.readTree(callApi(namespace, "GET", "/pets").body()).isArray()).isTrue();
    }

    @Test
    void movesReadsAndResetsTheClock(NamespaceControl namespace) {
        assertThat(namespace.getClock().real()).isTrue();
        Instant moved = Instant.parse("2031-01-02T03:04:05Z");
        Clock set = namespace.setClock(moved);
        assertThat(set.namespace()).isEqualTo(namespace.name());
        assertThat(set.real()).isFalse();
        Clock read = namespace.getClock();
        assertThat(read.real()).isFalse();
        assertThat(read.now()).as("it runs on from there").isBetween(moved, moved.plusSeconds(60));
        assertThat(SANDBOX.getControlClient().getClock().real()).as("the default namespace's clock").isTrue();

        Clock reset = namespace.resetClock();
        assertThat(reset.real()).isTrue();
        assertThat(reset.now()).isBetween(Instant.now().minusSeconds(60), Instant.now().plusSeconds(60));
    }

    @Test
    void listsTheNamespacesInUse(NamespaceControl namespace) {
        namespace.reset();
        NamespaceList list = SANDBOX.getControlClient().listNamespaces();
        assertThat(list.max()).isPositive();
        assertThat(list.namespaces()).extracting(NamespaceList.Usage::name).contains(namespace.name(), NamespaceControl.DEFAULT_NAMESPACE);
    }

    @Test
    void forksNamespacesFromASnapshotCopyOnWrite(NamespaceControl setup, NamespaceControl first, NamespaceControl second)
        throws Exception {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        Pet fixture = createPet(setup, "Snapshot Sam");
        Instant frozenAt = Instant.parse("2029-06-01T12:00:00Z");
        setup.setClock(frozenAt);
        List<Pet> frozen = setup.exportPets();
        String name = setup.name(); // unique, as the namespace's name is: snapshots are the sandbox's, not a namespace's

        Snapshot snapshot = setup.createSnapshot(name);
        assertThat(snapshot.name()).isEqualTo(name);
        assertThat(snapshot.namespace()).isEqualTo(setup.name());
        assertThat(snapshot.pets()).isEqualTo(frozen.size());
        assertThat(snapshot.clock()).as("the namespace's clock, running from where it was set").isBetween(frozenAt, frozenAt.plusSeconds(60));
        assertThat(snapshot.forks()).isEmpty();
        createPet(setup, "After the snapshot");

        assertThat(first.reset(ResetOptions.fromSnapshot(name))).isEqualTo(new StateSummary(first.name(), frozen.size()));
        assertThat(second.reset(ResetOptions.fromSnapshot(name)).pets()).isEqualTo(frozen.size());
        assertThat(first.exportPets()).as("the snapshot's pets, not what setup did since").isEqualTo(frozen).contains(fixture);
        assertThat(first.getClock().now()).as("the snapshot's clock").isBetween(frozenAt, frozenAt.plusSeconds(60));

        Pet onlyInFirst = createPet(first, "Only in first");
        assertThat(first.exportPets()).contains(onlyInFirst);
        assertThat(second.exportPets()).as("a fork's write is its own").isEqualTo(frozen);
        assertThat(first.reset(ResetOptions.fromSnapshot(name)).pets()).as("nor did it reach the snapshot").isEqualTo(frozen.size());
        assertThat(first.exportPets()).as("a reset returns the fork to the snapshot").isEqualTo(frozen);

        assertThat(client.listSnapshots().snapshots())
            .filteredOn(listed -> listed.name().equals(name))
            .singleElement()
            .satisfies(listed -> {
                assertThat(listed.pets()).isEqualTo(frozen.size());
                assertThat(listed.forks()).containsExactlyInAnyOrder(first.name(), second.name());
            });
        assertThatThrownBy(() -> client.deleteSnapshot(name))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(409);
                assertThat(refused.code()).isEqualTo("conflict");
                assertThat(refused.errorMessage()).contains(first.name(), second.name());
            });

        first.reset();
        client.deleteNamespace(second.name());
        assertThat(client.deleteSnapshot(name)).isEqualTo(new SnapshotDeleted(name, true));
        assertThat(client.listSnapshots().snapshots()).extracting(Snapshot::name).doesNotContain(name);
        assertThatThrownBy(() -> first.reset(ResetOptions.fromSnapshot(name)))
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
        Snapshot snapshot = client.createSnapshot(name);
        try {
            assertThat(snapshot.namespace()).isEqualTo(NamespaceControl.DEFAULT_NAMESPACE);
            assertThat(snapshot.clock()).as("the default namespace's clock follows real time").isNull();
            assertThat(fork.reset(ResetOptions.fromSnapshot(name)).pets()).isEqualTo(client.exportPets().size());
            assertThatThrownBy(() -> fork.createSnapshot(name))
                .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                    assertThat(refused.status()).isEqualTo(409);
                    assertThat(refused.code()).isEqualTo("conflict");
                });
            assertThatThrownBy(() -> fork.reset(ResetOptions.fromSnapshot(name).withSeed(3)))
                .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(400));
        } finally {
            fork.reset();
            client.deleteSnapshot(name);
        }
    }

    @Test
    void refusalsCarryTheStatusCodeAndMessage(NamespaceControl namespace) {
        assertThatThrownBy(() -> namespace.addFault(NewFault.on("noSuchOperation").withStatus(500)))
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
    }

    @Test
    void worksAgainstAnySandboxUrl() {
        // Not the container's client: a sandbox known only by its URL, its admin token and the default key.
        AnimalStoreControlClient byUrl = new AnimalStoreControlClient(
            URI.create(SANDBOX.getOrigin() + "/"),
            SANDBOX.getAdminToken(),
            AnimalStoreControlClient.DEFAULT_API_KEY
        );
        assertThat(byUrl.namespace("by-url").reset().namespace()).isEqualTo("by-url");
        assertThat(byUrl.namespace("by-url").apiHeaders())
            .containsExactly(
                Map.entry("Authorization", "Bearer sandbox-api-key"),
                Map.entry(NamespaceControl.NAMESPACE_HEADER, "by-url")
            );
        assertThat(byUrl.apiHeaders()).as("the default namespace needs no header").containsOnlyKeys("Authorization");

        assertThatThrownBy(() -> byUrl.namespace("no spaces")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> byUrl.namespace("-leading-dash")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AnimalStoreControlClient(URI.create("localhost:4010"))).isInstanceOf(IllegalArgumentException.class);
    }

    private static HttpResponse<String> callApi(NamespaceControl namespace, String method, String path) throws Exception {
        HttpRequest.Builder request = HttpRequest
            .newBuilder(URI.create(SANDBOX.getBaseUrl() + path))
            .method(method, HttpRequest.BodyPublishers.noBody());
        namespace.apiHeaders().forEach(request::header);
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Creates a pet through the API, in the namespace. */
    private static Pet createPet(NamespaceControl namespace, String name) throws Exception {
        String pet = JSON.writeValueAsString(Map.of("name", name, "categoryId", 1));
        HttpRequest.Builder request = HttpRequest
            .newBuilder(URI.create(SANDBOX.getBaseUrl() + "/pets"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(pet));
        namespace.apiHeaders().forEach(request::header);
        HttpResponse<String> created = HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        return ControlHttp.JSON.readValue(created.body(), Pet.class);
    }
}
