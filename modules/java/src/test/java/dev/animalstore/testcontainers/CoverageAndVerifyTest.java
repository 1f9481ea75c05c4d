package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.AnimalStoreControlException;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.SandboxAssertions;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/**
 * The coverage report and verify, and their assertions, after a short suite of API calls in the test's namespace.
 */
@DockerTest
class CoverageAndVerifyTest {

    /** A bound on reading the journal until it holds what a test expects (it holds a call before its answer). */
    private static final Duration JOURNAL_DELAY_BOUND = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void reportsWhatTheSuiteExercisedAndWhatItDidNot(NamespaceControl namespace) throws Exception {
        long invalidCreate = runSuite(namespace).invalidCreate();

        JsonNode report = namespace.getCoverage();
        assertThat(report.get("reportVersion").asInt()).isEqualTo(1);
        assertThat(report.get("namespace").asText()).isEqualTo(namespace.name());
        assertThat(report.get("namespaces")).containsExactly(JSON.valueToTree(namespace.name()));
        assertThat(report.get("summary")).isEqualTo(JSON.readTree(
            "{\"calls\":6,\"operations\":4,\"responses\":11,\"exercised\":5,\"unmatched\":1,\"invalid\":1,\"deprecatedCalls\":2,\"unstableCalls\":0," +
            "\"unauthenticatedDropped\":0,\"journalDropped\":0,\"namespacesDeleted\":0,\"namespacesEvicted\":0}"
        ));

        assertThat(report.get("operations").findValuesAsText("operationId")).containsExactly("listPets", "createPet", "getPet", "listOrders");
        assertThat(responses(report.at("/operations/0"))).containsExactly("200 ×1", "401 never");
        assertThat(responses(report.at("/operations/1")))
            .containsExactly("201 ×1", "400 invalid_body ×1", "400 malformed_json never", "400 bad_request never", "401 never");
        assertThat(responses(report.at("/operations/2"))).containsExactly("200 ×1", "401 never", "404 ×1");
        assertThat(responses(report.at("/operations/3"))).containsExactly("default never");
        assertThat(report.get("operations").valueStream().map(operation -> operation.get("calls").asInt())).containsExactly(1, 2, 2, 0);

        JsonNode limit = report.at("/operations/0/parameters/0");
        assertThat(limit.get("name").asText()).isEqualTo("limit");
        assertThat(limit.get("values").valueStream().map(value -> value.get("label").asText() + " ×" + value.get("calls").asInt()))
            .containsExactly("1 (minimum) ×0", "100 (maximum) ×0", "default (20) ×0");
        assertThat(limit.get("others")).isEqualTo(JSON.readTree("[{\"value\":\"5\",\"calls\":1}]"));

        assertThat(report.at("/operations/2/deprecated").asBoolean()).isTrue();
        assertThat(report.at("/operations/2/sunset").asText()).startsWith("2030-12-05");
        assertThat(report.at("/deprecatedCalls/0/operationId").asText()).isEqualTo("getPet");
        assertThat(report.at("/deprecatedCalls/0/calls").asInt()).isEqualTo(2);
        assertThat(report.at("/deprecatedCalls/0/replacement").asText()).isEqualTo("/v1/pets");
        assertThat(report.get("unstableCalls")).isEmpty();
        assertThat(report.at("/unmatched/requests")).isEqualTo(JSON.readTree("[{\"method\":\"GET\",\"path\":\"/v1/no-such-thing\",\"status\":404,\"calls\":1}]"));
        JsonNode invalid = report.at("/invalid/requests/0");
        assertThat(report.at("/invalid/requests")).hasSize(1);
        assertThat(invalid.get("id").asLong()).isEqualTo(invalidCreate);
        assertThat(List.of("operationId", "method", "path", "status", "code").stream().map(field -> invalid.get(field).asText()))
            .containsExactly("createPet", "POST", "/v1/pets", "400", "invalid_body");
        assertThat(invalid.get("message").asText()).contains("categoryId");

        String markdown = namespace.getCoverageMarkdown(Map.of());
        assertThat(markdown).startsWith("# API coverage: namespace `" + namespace.name() + "`");
        assertThat(markdown).contains("5 of 11 documented responses exercised").contains("removed on 2030-12-05");
    }

    @Test
    void reportsAcrossEveryNamespace(NamespaceControl first, NamespaceControl second) throws Exception {
        runSuite(first);
        runSuite(second);

        AnimalStoreControlClient client = SANDBOX.getControlClient();
        JsonNode all = client.getCoverage(Map.of("all", true));
        assertThat(all.get("namespace").isNull()).isTrue();
        assertThat(all.get("namespaces").valueStream().map(JsonNode::asText)).contains(first.name(), second.name());
        assertThat(all.at("/operations/1/calls").asInt()).isGreaterThanOrEqualTo(4);
        assertThat(client.getCoverageMarkdown(Map.of("all", true))).startsWith("# API coverage: every namespace");
        assertThatThrownBy(() -> SandboxAssertions.assertNoDeprecatedCalls(all)).hasMessageStartingWith("deprecated operations called (every namespace):\n- getPet ");
    }

    @Test
    void verifiesTheCallsExpected(NamespaceControl namespace) throws Exception {
        Suite suite = runSuite(namespace);

        JsonNode met = namespace.verify(expecting(
            calls("createPet", "count", 1, "body", Map.of("name", "Rex", "categoryId", 3)),
            calls("createPet", "headers", Map.of("content-type", "application/json"), "min", 2),
            calls("getPet", "max", 2),
            calls("listOrders", "count", 0)
        ));
        assertThat(met.get("passed").asBoolean()).as(met.get("message").asText()).isTrue();
        assertThat(met.get("checked").asInt()).isEqualTo(6);
        assertThat(met.get("expectations").valueStream().map(result -> result.get("matched").asInt())).containsExactly(1, 2, 2, 0);
        assertThat(met.at("/expectations/0/matchedEntries").valueStream().map(JsonNode::asLong)).containsExactly(suite.create());

        // The invalid create sent categoryId as a string: the expectation names it as the closest call.
        JsonNode missed = namespace.verify(expecting(calls("createPet", "count", 1, "body", Map.of("name", "Bad", "categoryId", 3))));
        assertThat(missed.get("passed").asBoolean()).isFalse();
        JsonNode failed = missed.at("/expectations/0");
        assertThat(failed.get("matched").asInt()).isZero();
        assertThat(failed.at("/closest/0/entry/id").asLong()).isEqualTo(suite.invalidCreate());
        assertThat(failed.at("/closest/0/differences")).isEqualTo(JSON.readTree(
            "[{\"in\":\"body\",\"pointer\":\"/categoryId\",\"expected\":3,\"actual\":\"3\",\"message\":\"createPet body /categoryId: expected 3, got \\\"3\\\"\"}]"
        ));
        assertThat(failed.get("message").asText()).contains("createPet body /categoryId: expected 3, got \"3\"");
    }

    @Test
    void strictVerificationNamesTheUnexpectedCall(NamespaceControl namespace) throws Exception {
        Suite suite = runSuite(namespace);

        Map<String, Object> expected = expecting(calls("createPet", "count", 2), calls("getPet", "count", 2), calls("unmatched", "count", 1));
        JsonNode result = namespace.verify(Map.of("expectations", expected.get("expectations"), "strict", true));
        assertThat(result.get("strict").asBoolean()).isTrue();
        assertThat(result.get("passed").asBoolean()).isFalse();
        assertThat(result.get("expectations").findValuesAsText("passed")).containsOnly("true");
        assertThat(result.get("unexpected")).hasSize(1);
        assertThat(result.at("/unexpected/0/id").asLong()).isEqualTo(suite.list());

        assertThat(namespace.verify(expected).get("passed").asBoolean()).as("without strict, other calls are allowed").isTrue();
    }

    @Test
    void assertionsFailWithWhatIsMissing(NamespaceControl namespace) throws Exception {
        Suite suite = runSuite(namespace);
        String scope = " (namespace " + namespace.name() + ")";

        assertThatThrownBy(() -> namespace.assertAllResponsesExercised("createPet"))
            .isInstanceOf(AssertionError.class)
            .hasMessage("documented responses never exercised" + scope + ":\n- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401");
        assertThatThrownBy(namespace::assertAllResponsesExercised)
            .as("every operation when none is named")
            .hasMessage(
                "documented responses never exercised" + scope + ":\n" +
                "- listPets (GET /v1/pets): 401\n" +
                "- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401\n" +
                "- getPet (GET /v1/pets/{petId}): 401\n" +
                "- listOrders (GET /v1/store/orders): default"
            );
        assertThatThrownBy(namespace::assertNoDeprecatedCalls)
            .isInstanceOf(AssertionError.class)
            .hasMessage("deprecated operations called" + scope + ":\n- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead");
        assertThatThrownBy(() -> namespace.assertVerified(calls("createPet", "count", 1, "body", Map.of("name", "Bad", "categoryId", 3))))
            .isInstanceOf(AssertionError.class)
            .hasMessageStartingWith("verification" + scope + " failed:\n- createPet: expected exactly 1 call")
            .hasMessageContaining("\n  #" + suite.invalidCreate() + " POST /v1/pets → 400 (createPet):\n    createPet body /categoryId: expected 3, got \"3\"");
        assertThatThrownBy(() -> namespace.assertVerifiedStrictly(calls("createPet", "count", 2), calls("getPet", "count", 2), calls("unmatched")))
            .isInstanceOf(AssertionError.class)
            .hasMessage("verification" + scope + " failed:\n- unexpected call (strict): #" + suite.list() + " GET /v1/pets → 200 (listPets)");
        assertThatThrownBy(() -> namespace.assertAllResponsesExercised("noSuchOperation"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the API has no operation noSuchOperation; it has listPets, createPet, getPet, listOrders");
    }

    @Test
    void assertionsPassWhenSatisfied(NamespaceControl namespace) throws Exception {
        ApiClient api = new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
        assertThat(api.get("/pets").statusCode()).isEqualTo(200);
        assertThat(api.get("/pets/1").statusCode()).isEqualTo(200);
        assertThat(api.get("/pets/987654").statusCode()).isEqualTo(404);
        Map<String, String> wrongKey = Map.of("Authorization", "Bearer wrong-key", NamespaceControl.NAMESPACE_HEADER, namespace.name());
        assertThat(new ApiClient(SANDBOX.getBaseUrl(), wrongKey).get("/pets/1").statusCode()).isEqualTo(401);
        awaitJournal(namespace, 4);

        // README coverage snippet begins
        namespace.assertAllResponsesExercised("getPet"); // every operation when none is named
        namespace.assertVerifiedStrictly(Map.of("operationId", "listPets", "count", 1), Map.of("operationId", "getPet", "min", 3));
        // README coverage snippet ends
        assertThatCode(() -> namespace.assertVerified(calls("getPet", "count", 3))).doesNotThrowAnyException();
        assertThatThrownBy(namespace::assertNoDeprecatedCalls).hasMessageContaining("getPet (GET /v1/pets/{petId}): 3 calls");

        namespace.reset(); // and the journal with it
        assertThat(api.get("/pets").statusCode()).isEqualTo(200);
        awaitJournal(namespace, 1);
        assertThatCode(namespace::assertNoDeprecatedCalls).doesNotThrowAnyException();
    }

    @Test
    void refusalsCarryTheErrorBody(NamespaceControl namespace) {
        assertThatThrownBy(() -> namespace.verify(expecting(calls("noSuchOperation"))))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(400);
                assertThat(refused.code()).isEqualTo("invalid_body");
                assertThat(refused.errorMessage()).contains("operationId");
            });
        assertThatThrownBy(() -> namespace.verify(expecting(calls("listPets", "min", 3, "max", 1))))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.code()).isEqualTo("invalid_body");
                assertThat(refused.errorMessage()).contains("min is above its max");
            });

        SANDBOX.getControlClient().deleteNamespace(namespace.name());
        assertThatThrownBy(namespace::getCoverage)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(404));
        assertThatThrownBy(() -> namespace.getCoverageMarkdown(Map.of()))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(404));
    }

    @Test
    void sayWhatTheJournalDroppedAndWhichNamespacesWentAway() throws Exception {
        try (
            AnimalStoreContainer small = new AnimalStoreContainer().withInMemory().withEnv("JOURNAL_SIZE", "2").withEnv("MAX_NAMESPACES", "2")
        ) {
            small.start();
            AnimalStoreControlClient client = small.getControlClient();
            NamespaceControl kept = client.namespace("kept");
            kept.reset();
            ApiClient api = new ApiClient(small.getBaseUrl(), kept.apiHeaders());
            for (int call = 0; call < 3; call++) {
                assertThat(api.get("/pets").statusCode()).isEqualTo(200);
            }
            awaitJournal(kept, 2);

            JsonNode summary = kept.getCoverage().get("summary");
            assertThat(summary.get("calls").asInt()).as("every call, those the journal dropped included").isEqualTo(3);
            assertThat(summary.get("journalDropped").asInt()).isEqualTo(1);
            assertThat(List.of(summary.get("namespacesDeleted").asInt(), summary.get("namespacesEvicted").asInt())).as("for one namespace").containsExactly(0, 0);

            JsonNode counted = kept.verify(expecting(calls("listPets", "count", 3)));
            assertThat(counted.get("passed").asBoolean()).as("decided by the counts of every call").isTrue();
            assertThat(counted.get("incomplete").asBoolean()).isFalse();
            assertThat(counted.get("journalDropped").asInt()).isEqualTo(1);
            JsonNode byHeader = kept.verify(expecting(calls("listPets", "headers", Map.of("x-sandbox-namespace", "kept"), "count", 3)));
            assertThat(byHeader.get("passed").asBoolean()).isFalse();
            assertThat(byHeader.get("incomplete").asBoolean()).isTrue();
            assertThat(byHeader.at("/expectations/0/incomplete").asBoolean()).isTrue();
            JsonNode strict = kept.verify(Map.of("expectations", List.of(calls("listPets", "count", 3)), "strict", true));
            assertThat(strict.get("incomplete").asBoolean()).as("strict mode cannot tell what the dropped calls were").isTrue();
            assertThat(strict.at("/expectations/0/incomplete").asBoolean()).isFalse();

            client.namespace("gone").reset(); // a third namespace: one of the two others is evicted
            client.deleteNamespace("gone");
            JsonNode run = client.getCoverage(Map.of("all", true));
            assertThat(List.of(run.at("/summary/namespacesDeleted").asInt(), run.at("/summary/namespacesEvicted").asInt())).containsExactly(1, 1);
            assertThat(run.at("/operations/0/calls").asInt()).as("the calls of a namespace evicted or deleted still count").isEqualTo(3);
        }
    }

    /** The journal ids of the suite's calls a test names. */
    private record Suite(long create, long list, long invalidCreate) {}

    /**
     * A short suite: a create, a list, an invalid create (categoryId as a string), a missing pet, the created pet
     * through the deprecated getPet, and a path no operation has. Returns once the journal holds all six.
     */
    @Test
    void readsOneTraceOfTheNamespace(NamespaceControl namespace) throws Exception {
        String listing = newTraceId();
        assertThat(traced(namespace.apiHeaders(), listing).get("/pets").statusCode()).isEqualTo(200);

        // README trace snippet begins
        String traceId = UUID.randomUUID().toString().replace("-", "");
        String parentId = UUID.randomUUID().toString().replace("-", "").substring(16);
        Map<String, String> headers = Map.of(
            "baggage", "sandbox.namespace=" + namespace.name(),
            "traceparent", "00-" + traceId + "-" + parentId + "-01"
        );
        // the test's call to the service under test, with these headers, which the service passes on
        ApiClient service = new ApiClient(SANDBOX.getBaseUrl(), withKey(headers)); // test only
        assertThat(service.post("/pets", "{\"name\":\"Traced\",\"categoryId\":1}").statusCode()).isEqualTo(201); // test only

        assertThat(namespace.countRequests(Map.of("traceId", traceId))).isEqualTo(1);
        JsonNode verified = namespace.verify(Map.of("traceId", traceId), Map.of("strict", true, "expectations", List.of(Map.of("operationId", "createPet", "count", 1))));
        SandboxAssertions.assertPassed(verified);
        JsonNode report = namespace.getCoverage(Map.of("traceId", traceId)); // what this call exercised, whatever else the namespace got
        // README trace snippet ends
        awaitJournal(namespace, 2);

        JsonNode listed = namespace.listRequests(Map.of("traceId", listing));
        assertThat(listed.get("count").asInt()).isEqualTo(1);
        assertThat(List.of(listed.at("/entries/0/operationId").asText(), listed.at("/entries/0/traceId").asText())).containsExactly("listPets", listing);
        JsonNode created = namespace.listRequests(Map.of("traceId", traceId)).get("entries");
        assertThat(created).hasSize(1);
        assertThat(List.of("operationId", "namespace", "traceId").stream().map(field -> created.get(0).get(field).asText()))
            .containsExactly("createPet", namespace.name(), traceId);

        assertThat(report.at("/summary/calls").asInt()).isEqualTo(1);
        assertThat(List.of(report.at("/operations/1/calls").asInt(), report.at("/operations/0/calls").asInt())).containsExactly(1, 0);
        assertThat(namespace.getCoverageMarkdown(Map.of("traceId", traceId))).contains("createPet");

        Map<String, String> ofListing = Map.of("traceId", listing);
        assertThat(namespace.verify(ofListing, Map.of("strict", true, "expectations", List.of(calls("createPet", "count", 1)))).get("passed").asBoolean()).isFalse();
        assertThat(namespace.verify(ofListing, expecting(calls("listPets", "count", 1))).get("passed").asBoolean()).isTrue();
    }

    private static Suite runSuite(NamespaceControl namespace) throws Exception {
        ApiClient api = new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
        var created = api.post("/pets", "{\"name\":\"Rex\",\"categoryId\":3}");
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(api.get("/pets?limit=5").statusCode()).isEqualTo(200);
        assertThat(api.post("/pets", "{\"name\":\"Bad\",\"categoryId\":\"3\"}").statusCode()).isEqualTo(400);
        assertThat(api.get("/pets/987654").statusCode()).isEqualTo(404);
        assertThat(api.get("/pets/" + JSON.readTree(created.body()).get("id").asLong()).statusCode()).isEqualTo(200);
        assertThat(api.get("/no-such-thing").statusCode()).isEqualTo(404);

        JsonNode entries = awaitJournal(namespace, 6);
        return new Suite(entries.at("/0/id").asLong(), entries.at("/1/id").asLong(), entries.at("/2/id").asLong());
    }

    /** A fresh W3C trace id: 32 lowercase hex digits. */
    private static String newTraceId() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    /** API calls with these headers, in the trace {@code traceId}. */
    private static ApiClient traced(Map<String, String> headers, String traceId) {
        Map<String, String> tracing = new LinkedHashMap<>(headers);
        tracing.put("traceparent", "00-" + traceId + "-" + newTraceId().substring(16) + "-01");
        return new ApiClient(SANDBOX.getBaseUrl(), tracing);
    }

    /** These headers and the sandbox's API key, as a service under test would send its calls. */
    private static Map<String, String> withKey(Map<String, String> headers) {
        Map<String, String> keyed = new LinkedHashMap<>(headers);
        keyed.put("Authorization", SANDBOX.getControlClient().apiHeaders().get("Authorization"));
        return keyed;
    }

    private static JsonNode awaitJournal(NamespaceControl namespace, int count) {
        await().atMost(JOURNAL_DELAY_BOUND).until(() -> namespace.countRequests(Map.of()) >= count);
        return namespace.listRequests().get("entries");
    }

    /** Each documented response, e.g. {@code 400 invalid_body ×1} or {@code 401 never}. */
    private static List<String> responses(JsonNode operation) {
        return operation.get("responses").valueStream().map(r -> r.get("label").asText() + (r.get("exercised").asBoolean() ? " ×" + r.get("calls").asInt() : " never")).toList();
    }

    /** An expectation of verify: the calls of {@code operationId}, with these fields (count, min, max, body, headers). */
    private static Map<String, Object> calls(String operationId, Object... fields) {
        Map<String, Object> expectation = new LinkedHashMap<>(Map.of("operationId", operationId));
        for (int i = 0; i < fields.length; i += 2) {
            expectation.put((String) fields[i], fields[i + 1]);
        }
        return expectation;
    }

    private static Map<String, Object> expecting(Object... expectations) {
        return Map.of("expectations", List.of(expectations));
    }
}
