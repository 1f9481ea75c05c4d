package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.SandboxAssertions;
import dev.animalstore.testcontainers.control.api.ClockApi;
import dev.animalstore.testcontainers.control.api.ClockApi.APIGetClockRequest;
import dev.animalstore.testcontainers.control.api.ClockApi.APIResetClockRequest;
import dev.animalstore.testcontainers.control.api.ClockApi.APISetClockRequest;
import dev.animalstore.testcontainers.control.api.FaultsApi;
import dev.animalstore.testcontainers.control.api.FaultsApi.APIAddFaultRequest;
import dev.animalstore.testcontainers.control.api.FaultsApi.APIClearFaultsRequest;
import dev.animalstore.testcontainers.control.api.FaultsApi.APIListFaultsRequest;
import dev.animalstore.testcontainers.control.api.JournalApi;
import dev.animalstore.testcontainers.control.api.JournalApi.APIClearRequestsRequest;
import dev.animalstore.testcontainers.control.api.JournalApi.APIListRequestsRequest;
import dev.animalstore.testcontainers.control.api.JournalApi.APIListUnmatchedRequestsRequest;
import dev.animalstore.testcontainers.control.api.NamespacesApi;
import dev.animalstore.testcontainers.control.api.NamespacesApi.APIDeleteNamespaceRequest;
import dev.animalstore.testcontainers.control.api.SnapshotsApi;
import dev.animalstore.testcontainers.control.api.SnapshotsApi.APICreateSnapshotRequest;
import dev.animalstore.testcontainers.control.api.SnapshotsApi.APIDeleteSnapshotRequest;
import dev.animalstore.testcontainers.control.api.StateApi;
import dev.animalstore.testcontainers.control.api.StateApi.APIExportPetsRequest;
import dev.animalstore.testcontainers.control.api.StateApi.APIReplacePetsRequest;
import dev.animalstore.testcontainers.control.api.StateApi.APIResetRequest;
import dev.animalstore.testcontainers.control.api.TlsApi;
import dev.animalstore.testcontainers.control.api.VerificationApi;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIExportPactRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIGetCoverageRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIGetDriftRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIVerifyRequest;
import dev.animalstore.testcontainers.control.invoker.ApiException;
import dev.animalstore.testcontainers.control.model.Clock;
import dev.animalstore.testcontainers.control.model.CoverageReport;
import dev.animalstore.testcontainers.control.model.Expectation;
import dev.animalstore.testcontainers.control.model.ExportPets200ResponseInner;
import dev.animalstore.testcontainers.control.model.Fault;
import dev.animalstore.testcontainers.control.model.JournalPage;
import dev.animalstore.testcontainers.control.model.NewFault;
import dev.animalstore.testcontainers.control.model.NewSnapshot;
import dev.animalstore.testcontainers.control.model.OperationCoverage;
import dev.animalstore.testcontainers.control.model.Pact;
import dev.animalstore.testcontainers.control.model.ResetRequest;
import dev.animalstore.testcontainers.control.model.SetClockRequest;
import dev.animalstore.testcontainers.control.model.Snapshot;
import dev.animalstore.testcontainers.control.model.VerifyRequest;
import dev.animalstore.testcontainers.control.model.VerifyResult;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.URI;
import java.time.OffsetDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/**
 * One sandbox for the class, a fresh namespace for each test: the tests cannot see each other's writes. Every
 * operation of the control client (generated from the spec at each build) runs once against it through a handle: what
 * it sends is taken, and its answer reads; what the answers mean is the sandbox's, tested in its own suite (test/control, test/journal).
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
        assertThat(SANDBOX.getControlClient().api(StateApi.class).exportPets(APIExportPetsRequest.newBuilder().build())).as("the seeded pets").hasSize(SEEDED_PETS);
    }

    @Test
    void namespacesDoNotSeeEachOthersWrites(NamespaceControl first, NamespaceControl second) throws Exception {
        assertThat(first.name()).isNotEqualTo(second.name());
        String pet = JSON.writeValueAsString(Map.of("name", "Only In First", "categoryId", 1, "status", "available"));
        long id = JSON.readTree(api(first).post("/pets", pet).body()).get("id").asLong();

        assertThat(api(first).get("/pets/" + id).statusCode()).isEqualTo(200);
        assertThat(api(second).get("/pets/" + id).statusCode()).isEqualTo(404);
        assertThat(second.api(StateApi.class).exportPets(APIExportPetsRequest.newBuilder().build())).extracting(ExportPets200ResponseInner::getName).doesNotContain("Only In First");
    }

    @Test
    void everyOperationSendsWhatTheSandboxTakes(NamespaceControl namespace, NamespaceControl other) throws Exception {
        AnimalStoreControlClient client = SANDBOX.getControlClient();
        String name = namespace.name();
        StateApi state = namespace.api(StateApi.class);
        assertThat(state.reset(APIResetRequest.newBuilder().resetRequest(new ResetRequest().seed(3).count(4)).build()).getPets()).isEqualTo(4);
        List<ExportPets200ResponseInner> pets = state.exportPets(APIExportPetsRequest.newBuilder().build());
        assertThat(state.replacePets(APIReplacePetsRequest.newBuilder().exportPets200ResponseInner(pets.subList(0, 2)).build()).getPets()).isEqualTo(2);

        for (String path : List.of("/pets?limit=5", "/pets/1", "/nowhere")) {
            api(namespace).get(path);
        }
        // Each request is in the journal before its answer reaches the client.
        assertThat(namespace.countRequests(null, null)).isEqualTo(3);
        JournalApi journal = namespace.api(JournalApi.class);
        OffsetDateTime hourAgo = OffsetDateTime.now().minusHours(1);
        APIListRequestsRequest listPets = APIListRequestsRequest.newBuilder().method("get").path("/v1/pets").operationId("listPets").status(200).since(hourAgo).limit(1).build();
        assertThat(journal.listRequests(listPets).getEntries().get(0).getQuery()).containsEntry("limit", "5");
        JournalPage first = journal.listRequests(APIListRequestsRequest.newBuilder().limit(2).build());
        assertThat(journal.listRequests(APIListRequestsRequest.newBuilder().after(first.getNext()).build()).getEntries()).hasSize(1);
        assertThat(journal.listUnmatchedRequests(APIListUnmatchedRequestsRequest.newBuilder().limit(5).build()).getEntries().get(0).getPath()).isEqualTo("/v1/nowhere");

        // The Markdown report is text, which the generated call does not parse.
        ApiClient admin = new ApiClient(SANDBOX.getOrigin() + "/__admin", Map.of("Authorization", "Bearer " + SANDBOX.getAdminToken()));
        assertThat(admin.get("/coverage?format=markdown&namespace=" + name).body()).startsWith("# API coverage: namespace `" + name + "`");
        VerificationApi verification = namespace.api(VerificationApi.class);
        VerifyRequest expected = new VerifyRequest().strict(true).expectations(List.of(
            new Expectation().operationId("listPets").count(1).headers(Map.of(NamespaceControl.NAMESPACE_HEADER, name)),
            new Expectation().operationId("getPet").min(1).max(1), new Expectation().operationId("unmatched")));
        VerifyResult verified = verification.verify(APIVerifyRequest.newBuilder().verifyRequest(expected).build());
        assertThat(verified.getPassed()).as(verified.getMessage()).isTrue();
        assertThat(verification.getDrift(APIGetDriftRequest.newBuilder().build()).getMode().getValue()).isEqualTo("off");
        Pact pact = verification.exportPact(APIExportPactRequest.newBuilder().consumer("checkout").provider("store").build());
        assertThat(List.of(pact.getConsumer().getName(), pact.getProvider().getName())).containsExactly("checkout", "store");
        assertThat(journal.clearRequests(APIClearRequestsRequest.newBuilder().build()).getCleared()).isEqualTo(3);

        FaultsApi faults = namespace.api(FaultsApi.class);
        Fault fault = faults.addFault(APIAddFaultRequest.newBuilder().newFault(new NewFault().operationId("listPets").status(503).times(1)).build());
        assertThat(faults.listFaults(APIListFaultsRequest.newBuilder().build()).getFaults()).extracting(Fault::getId).containsExactly(fault.getId());
        assertThat(faults.clearFaults(APIClearFaultsRequest.newBuilder().build()).getCleared()).isEqualTo(1);

        ClockApi clock = namespace.api(ClockApi.class);
        OffsetDateTime frozenAt = OffsetDateTime.parse("2029-06-01T12:00:00Z");
        Clock frozen = clock.setClock(APISetClockRequest.newBuilder().setClockRequest(new SetClockRequest().now(frozenAt)).build());
        assertThat(frozen.getNow()).isBetween(frozenAt, frozenAt.plusSeconds(60));
        assertThat(clock.getClock(APIGetClockRequest.newBuilder().build()).getReal()).isFalse();
        Snapshot snapshot = client.api(SnapshotsApi.class).createSnapshot(APICreateSnapshotRequest.newBuilder().newSnapshot(new NewSnapshot().name(name).namespace(name)).build());
        assertThat(List.of(snapshot.getNamespace(), snapshot.getPets())).containsExactly(name, 2);
        assertThat(clock.resetClock(APIResetClockRequest.newBuilder().build()).getReal()).isTrue();
        assertThat(other.api(StateApi.class).reset(APIResetRequest.newBuilder().resetRequest(new ResetRequest().snapshot(name)).build()).getPets()).isEqualTo(2);
        assertThat(client.api(SnapshotsApi.class).listSnapshots().getSnapshots()).anySatisfy(listed -> assertThat(listed.getForks()).containsExactly(other.name()));

        assertThat(client.api(NamespacesApi.class).listNamespaces().getNamespaces()).extracting(listed -> listed.getName()).contains(name, other.name());
        assertThat(client.api(NamespacesApi.class).deleteNamespace(APIDeleteNamespaceRequest.newBuilder().name(other.name()).build()).getDeleted().getValue()).isTrue();
        assertThat(client.api(SnapshotsApi.class).deleteSnapshot(APIDeleteSnapshotRequest.newBuilder().name(name).build()).getDeleted().getValue()).isTrue();
        assertThatThrownBy(() -> client.api(TlsApi.class).getTlsCa())
            .as("served over plain HTTP: no CA was made")
            .isInstanceOfSatisfying(ApiException.class, refused -> assertThat(refused.getCode()).isEqualTo(404));
    }

    @Test
    void aClientOfAnySandboxUrlCarriesARefusalsStatusAndErrorBody() {
        AnimalStoreControlClient byUrl = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin() + "/"), SANDBOX.getAdminToken(), API_KEY);
        NamespaceControl namespace = byUrl.namespace("by-url");
        assertThat(namespace.apiHeaders()).containsOnly(Map.entry("Authorization", "Bearer " + API_KEY), Map.entry(NamespaceControl.NAMESPACE_HEADER, "by-url"));
        assertThat(byUrl.apiHeaders()).as("the default namespace needs no header").containsOnlyKeys("Authorization");
        assertThatThrownBy(() -> namespace.api(FaultsApi.class).addFault(APIAddFaultRequest.newBuilder().newFault(new NewFault().operationId("noSuchOperation").status(500)).build()))
            .isInstanceOfSatisfying(ApiException.class, refused -> {
                assertThat(refused.getCode()).isEqualTo(400);
                assertThat(refused.getResponseBody()).contains("\"code\":\"invalid_body\"", "operationId");
            });
        AnimalStoreControlClient wrongToken = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin()), "not-the-token", API_KEY);
        assertThatThrownBy(() -> wrongToken.api(NamespacesApi.class).listNamespaces())
            .isInstanceOfSatisfying(ApiException.class, refused -> assertThat(refused.getResponseBody()).contains("\"code\":\"unauthorized\""));
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
        namespace.assertVerifiedStrictly(new Expectation().operationId("listPets").count(1), new Expectation().operationId("getPet").min(3));
        // README coverage snippet ends
        // What each says when it fails: the sandbox's message where it gives one.
        assertThatThrownBy(namespace::assertNoDeprecatedCalls).isInstanceOf(AssertionError.class).hasMessage("deprecated operations called (namespace "
            + namespace.name() + "):\n- getPet (GET /v1/pets/{petId}): 3 calls, sunset 2030-12-05, use /v1/pets instead");
        VerificationApi verification = namespace.api(VerificationApi.class);
        assertThatThrownBy(namespace::assertAllResponsesExercised).hasMessage(verification.getCoverage(APIGetCoverageRequest.newBuilder().build()).getMessage());
        assertThatThrownBy(() -> namespace.assertAllResponsesExercised("nope"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("the API has no operation nope; it has listPets, ");
        VerifyRequest getPetOnce = new VerifyRequest().expectations(List.of(new Expectation().operationId("getPet").count(1)));
        VerifyResult failed = verification.verify(APIVerifyRequest.newBuilder().verifyRequest(getPetOnce).build());
        assertThatThrownBy(() -> SandboxAssertions.assertPassed(failed)).hasMessage("verification (namespace " + namespace.name() + ") " + failed.getMessage());
    }

    @Test
    void aSuiteThatCausedEveryReachableResponseOfCreatePetPassesTheCheck(NamespaceControl namespace) throws Exception {
        assertThat(api(namespace).post("/pets", "{\"name\":\"Rex\",\"categoryId\":3}").statusCode()).isEqualTo(201);
        assertThat(api(namespace).post("/pets", "{\"categoryId\":3}").statusCode()).isEqualTo(400);
        // The sandbox's words, the same as the TypeScript client raises (test/journal/client-assertions.test.ts).
        assertThatThrownBy(() -> namespace.assertAllResponsesExercised("createPet"))
            .isInstanceOf(AssertionError.class)
            .hasMessage("createPet (POST /v1/pets), namespace " + namespace.name() + ": never exercised 401");
        Map<String, String> wrongKey = Map.of("Authorization", "Bearer wrong-key", NamespaceControl.NAMESPACE_HEADER, namespace.name());
        assertThat(new ApiClient(SANDBOX.getBaseUrl(), wrongKey).post("/pets", "{}").statusCode()).isEqualTo(401);

        // No malformed JSON, no forced 400: a conforming client causes neither, and the check asks for neither.
        namespace.assertAllResponsesExercised("createPet");
        OperationCoverage createPet = namespace.api(VerificationApi.class).getCoverage(APIGetCoverageRequest.newBuilder().build()).getOperations().stream()
            .filter(operation -> operation.getOperationId().equals("createPet"))
            .findFirst()
            .orElseThrow();
        List<String> left = createPet.getResponses().stream()
            .filter(response -> !response.getExercised())
            .map(response -> response.getLabel() + " reachable=" + response.getReachable())
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

        assertThat(namespace.countRequests(null, traceId)).isEqualTo(1);
        VerificationApi verification = namespace.api(VerificationApi.class);
        VerifyRequest expected = new VerifyRequest().strict(true).expectations(List.of(new Expectation().operationId("createPet").count(1)));
        SandboxAssertions.assertPassed(verification.verify(APIVerifyRequest.newBuilder().verifyRequest(expected).traceId(traceId).build()));
        // What this call exercised, whatever else the namespace got.
        CoverageReport report = verification.getCoverage(APIGetCoverageRequest.newBuilder().traceId(traceId).build());
        // README trace snippet ends
        assertThat(report.getSummary().getCalls()).isEqualTo(1);
    }

    private static ApiClient api(NamespaceControl namespace) {
        return new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
    }
}
