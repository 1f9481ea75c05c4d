package dev.animalstore.testcontainers;

import static dev.animalstore.testcontainers.control.Expectation.calls;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.AnimalStoreControlException;
import dev.animalstore.testcontainers.control.CoverageReport;
import dev.animalstore.testcontainers.control.CoverageReport.DeprecatedCall;
import dev.animalstore.testcontainers.control.Expectation;
import dev.animalstore.testcontainers.control.JournalEntry;
import dev.animalstore.testcontainers.control.JournalPage;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.OperationCoverage;
import dev.animalstore.testcontainers.control.RequestFilter;
import dev.animalstore.testcontainers.control.VerifyResult;
import dev.animalstore.testcontainers.control.VerifyResult.Difference;
import dev.animalstore.testcontainers.control.VerifyResult.ExpectationResult;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.time.Duration;
import java.time.Instant;
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

    /** getPet's removal date in the API's spec. */
    private static final Instant GET_PET_SUNSET = Instant.parse("2030-12-05T00:00:00Z");

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void reportsWhatTheSuiteExercisedAndWhatItDidNot(NamespaceControl namespace) throws Exception {
        long invalidCreate = runSuite(namespace).invalidCreate();

        CoverageReport report = namespace.getCoverage();
        assertThat(report.reportVersion()).isEqualTo(1);
        assertThat(report.namespace()).isEqualTo(namespace.name());
        assertThat(report.namespaces()).containsExactly(namespace.name());
        assertThat(report.summary()).isEqualTo(new CoverageReport.Summary(6, 4, 11, 5, 1, 1, 2, 0, 0, 0, 0, 0));

        assertThat(report.operations()).extracting(OperationCoverage::operationId).containsExactly("listPets", "createPet", "getPet", "listOrders");
        assertThat(responses(report.operation("listPets"))).containsExactly("200 ×1", "401 never");
        assertThat(responses(report.operation("createPet")))
            .containsExactly("201 ×1", "400 invalid_body ×1", "400 malformed_json never", "400 bad_request never", "401 never");
        assertThat(responses(report.operation("getPet"))).containsExactly("200 ×1", "401 never", "404 ×1");
        assertThat(responses(report.operation("listOrders"))).containsExactly("default never");
        assertThat(report.operations()).extracting(OperationCoverage::calls).containsExactly(1, 2, 2, 0);

        OperationCoverage.ParameterCoverage limit = report.operation("listPets").parameters().get(0);
        assertThat(limit.name()).isEqualTo("limit");
        assertThat(limit.values()).extracting(value -> value.label() + " ×" + value.calls()).containsExactly("1 (minimum) ×0", "100 (maximum) ×0", "default (20) ×0");
        assertThat(limit.others()).containsExactly(new OperationCoverage.ParameterCoverage.OtherValue("5", 1));

        OperationCoverage getPet = report.operation("getPet");
        assertThat(getPet.deprecated()).isTrue();
        assertThat(getPet.sunset()).isEqualTo(GET_PET_SUNSET);
        assertThat(report.deprecatedCalls()).containsExactly(new DeprecatedCall("getPet", "GET", "/v1/pets/{petId}", 2, GET_PET_SUNSET, "/v1/pets"));
        assertThat(report.unstableCalls()).isEmpty();
        assertThat(report.unmatched().requests()).containsExactly(new CoverageReport.UnmatchedRequest("GET", "/v1/no-such-thing", 404, 1));
        assertThat(report.invalid().requests()).singleElement().satisfies(invalid -> {
            assertThat(invalid.id()).isEqualTo(invalidCreate);
            assertThat(List.of(invalid.operationId(), invalid.method(), invalid.path(), invalid.status(), invalid.code()))
                .containsExactly("createPet", "POST", "/v1/pets", 400, "invalid_body");
            assertThat(invalid.message()).contains("categoryId");
        });

        String markdown = namespace.getCoverageMarkdown();
        assertThat(markdown).startsWith("# API coverage: namespace `" + namespace.name() + "`");
        assertThat(markdown).contains("5 of 11 documented responses exercised").contains("removed on 2030-12-05");
    }

    @Test
    void reportsAcrossEveryNamespace(NamespaceControl first, NamespaceControl second) throws Exception {
        runSuite(first);
        runSuite(second);

        AnimalStoreControlClient client = SANDBOX.getControlClient();
        CoverageReport all = client.getCoverageOfAllNamespaces();
        assertThat(all.namespace()).isNull();
        assertThat(all.namespaces()).contains(first.name(), second.name());
        assertThat(all.operation("createPet").calls()).isGreaterThanOrEqualTo(4);
        assertThat(client.getCoverageMarkdownOfAllNamespaces()).startsWith("# API coverage: every namespace");
        assertThatThrownBy(all::assertNoDeprecatedCalls).hasMessageStartingWith("deprecated operations called (every namespace):\n- getPet ");
    }

    @Test
    void verifiesTheCallsExpected(NamespaceControl namespace) throws Exception {
        Suite suite = runSuite(namespace);

        VerifyResult met = namespace.verify(
            calls("createPet").times(1).withBody(Map.of("name", "Rex", "categoryId", 3)),
            calls("createPet").withHeader("content-type", "application/json").atLeast(2),
            calls("getPet").atMost(2),
            calls("listOrders").never()
        );
        assertThat(met.passed()).as(met.message()).isTrue();
        assertThat(met.checked()).isEqualTo(6);
        assertThat(met.expectations()).extracting(ExpectationResult::matched).containsExactly(1, 2, 2, 0);
        assertThat(met.expectations().get(0).matchedEntries()).containsExactly(suite.create());

        // The invalid create sent categoryId as a string: the expectation names it as the closest call.
        VerifyResult missed = namespace.verify(calls("createPet").times(1).withBody(Map.of("name", "Bad", "categoryId", 3)));
        assertThat(missed.passed()).isFalse();
        ExpectationResult failed = missed.expectations().get(0);
        assertThat(failed.matched()).isZero();
        assertThat(failed.closest().get(0).entry().id()).isEqualTo(suite.invalidCreate());
        assertThat(failed.closest().get(0).differences())
            .containsExactly(new Difference("body", "/categoryId", IntNode.valueOf(3), TextNode.valueOf("3"), "createPet body /categoryId: expected 3, got \"3\""));
        assertThat(failed.message()).contains("createPet body /categoryId: expected 3, got \"3\"");
    }

    @Test
    void strictVerificationNamesTheUnexpectedCall(NamespaceControl namespace) throws Exception {
        Suite suite = runSuite(namespace);

        VerifyResult result = namespace.verifyStrictly(calls("createPet").times(2), calls("getPet").times(2), calls("unmatched").times(1));
        assertThat(result.strict()).isTrue();
        assertThat(result.passed()).isFalse();
        assertThat(result.expectations()).allMatch(ExpectationResult::passed);
        assertThat(result.unexpected()).singleElement().satisfies(entry -> {
            assertThat(entry.id()).isEqualTo(suite.list());
            assertThat(entry).hasToString("#" + suite.list() + " GET /v1/pets → 200 (listPets)");
        });

        assertThat(namespace.verify(calls("createPet").times(2), calls("getPet").times(2)).passed()).as("without strict, other calls are allowed").isTrue();
    }

    @Test
    void assertionsFailWithWhatIsMissing(NamespaceControl namespace) throws Exception {
        Suite suite = runSuite(namespace);
        String scope = " (namespace " + namespace.name() + "):\n";

        assertThatThrownBy(() -> namespace.assertAllResponsesExercised("createPet"))
            .isInstanceOf(AssertionError.class)
            .hasMessage("documented responses never exercised" + scope + "- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401");
        assertThatThrownBy(namespace::assertAllResponsesExercised)
            .as("every operation when none is named")
            .hasMessage(
                "documented responses never exercised" + scope +
                "- listPets (GET /v1/pets): 401\n" +
                "- createPet (POST /v1/pets): 400 malformed_json, 400 bad_request, 401\n" +
                "- getPet (GET /v1/pets/{petId}): 401\n" +
                "- listOrders (GET /v1/store/orders): default"
            );
        assertThatThrownBy(namespace::assertNoDeprecatedCalls)
            .isInstanceOf(AssertionError.class)
            .hasMessage("deprecated operations called" + scope + "- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead");
        assertThatThrownBy(() -> namespace.assertVerified(calls("createPet").times(1).withBody(Map.of("name", "Bad", "categoryId", 3))))
            .isInstanceOf(AssertionError.class)
            .hasMessageStartingWith("verification failed" + scope + "- createPet: expected exactly 1 call")
            .hasMessageContaining("\n  #" + suite.invalidCreate() + " POST /v1/pets → 400 (createPet):\n    createPet body /categoryId: expected 3, got \"3\"");
        assertThatThrownBy(() -> namespace.assertVerifiedStrictly(calls("createPet").times(2), calls("getPet").times(2), calls("unmatched")))
            .isInstanceOf(AssertionError.class)
            .hasMessage("verification failed" + scope + "- unexpected call (strict): #" + suite.list() + " GET /v1/pets → 200 (listPets)");
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
        namespace.assertVerifiedStrictly(Expectation.calls("listPets").times(1), Expectation.calls("getPet").atLeast(3));
        // README coverage snippet ends
        assertThatCode(() -> namespace.assertVerified(calls("getPet").times(3))).doesNotThrowAnyException();
        assertThatThrownBy(namespace::assertNoDeprecatedCalls).hasMessageContaining("getPet (GET /v1/pets/{petId}): 3 calls");

        namespace.reset(); // and the journal with it
        assertThat(api.get("/pets").statusCode()).isEqualTo(200);
        awaitJournal(namespace, 1);
        assertThatCode(namespace::assertNoDeprecatedCalls).doesNotThrowAnyException();
    }

    @Test
    void refusalsCarryTheErrorBody(NamespaceControl namespace) {
        assertThatThrownBy(() -> namespace.verify(calls("noSuchOperation")))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.status()).isEqualTo(400);
                assertThat(refused.code()).isEqualTo("invalid_body");
                assertThat(refused.errorMessage()).contains("operationId");
            });
        assertThatThrownBy(() -> namespace.verify(calls("listPets").atLeast(3).atMost(1)))
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> {
                assertThat(refused.code()).isEqualTo("invalid_body");
                assertThat(refused.errorMessage()).contains("min is above its max");
            });

        SANDBOX.getControlClient().deleteNamespace(namespace.name());
        assertThatThrownBy(namespace::getCoverage)
            .isInstanceOfSatisfying(AnimalStoreControlException.class, refused -> assertThat(refused.status()).isEqualTo(404));
        assertThatThrownBy(namespace::getCoverageMarkdown)
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

            CoverageReport.Summary summary = kept.getCoverage().summary();
            assertThat(summary.calls()).as("every call, those the journal dropped included").isEqualTo(3);
            assertThat(summary.journalDropped()).isEqualTo(1);
            assertThat(List.of(summary.namespacesDeleted(), summary.namespacesEvicted())).as("for one namespace").containsExactly(0, 0);

            VerifyResult counted = kept.verify(calls("listPets").times(3));
            assertThat(counted.passed()).as("decided by the counts of every call").isTrue();
            assertThat(counted.incomplete()).isFalse();
            assertThat(counted.journalDropped()).isEqualTo(1);
            VerifyResult byHeader = kept.verify(calls("listPets").withHeader("x-sandbox-namespace", "kept").times(3));
            assertThat(byHeader.passed()).isFalse();
            assertThat(byHeader.incomplete()).isTrue();
            assertThat(byHeader.expectations()).singleElement().extracting(ExpectationResult::incomplete).isEqualTo(true);
            VerifyResult strict = kept.verifyStrictly(calls("listPets").times(3));
            assertThat(strict.incomplete()).as("strict mode cannot tell what the dropped calls were").isTrue();
            assertThat(strict.expectations()).singleElement().extracting(ExpectationResult::incomplete).isEqualTo(false);

            client.namespace("gone").reset(); // a third namespace: one of the two others is evicted
            client.deleteNamespace("gone");
            CoverageReport run = client.getCoverageOfAllNamespaces();
            assertThat(List.of(run.summary().namespacesDeleted(), run.summary().namespacesEvicted())).containsExactly(1, 1);
            assertThat(run.operation("listPets").calls()).as("the calls of a namespace evicted or deleted still count").isEqualTo(3);
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

        assertThat(namespace.countRequests(RequestFilter.all().withTraceId(traceId))).isEqualTo(1);
        namespace.verifyTraceStrictly(traceId, Expectation.calls("createPet").times(1)).assertPassed();
        CoverageReport report = namespace.getCoverageOfTrace(traceId); // what this call exercised, whatever else the namespace got
        // README trace snippet ends
        awaitJournal(namespace, 2);

        JournalPage listed = namespace.listRequests(RequestFilter.all().withTraceId(listing));
        assertThat(listed.count()).isEqualTo(1);
        assertThat(listed.entries()).extracting(JournalEntry::operationId, JournalEntry::traceId).containsExactly(tuple("listPets", listing));
        assertThat(namespace.listRequests(RequestFilter.all().withTraceId(traceId)).entries())
            .extracting(JournalEntry::operationId, JournalEntry::namespace, JournalEntry::traceId)
            .containsExactly(tuple("createPet", namespace.name(), traceId));

        assertThat(report.summary().calls()).isEqualTo(1);
        assertThat(List.of(report.operation("createPet").calls(), report.operation("listPets").calls())).containsExactly(1, 0);
        assertThat(namespace.getCoverageMarkdownOfTrace(traceId)).contains("createPet");

        assertThat(namespace.verifyTraceStrictly(listing, calls("createPet").times(1)).passed()).isFalse();
        assertThat(namespace.verifyTrace(listing, calls("listPets").times(1)).passed()).isTrue();
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

        var entries = awaitJournal(namespace, 6);
        return new Suite(entries.get(0).id(), entries.get(1).id(), entries.get(2).id());
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

    private static List<JournalEntry> awaitJournal(NamespaceControl namespace, int count) {
        await().atMost(JOURNAL_DELAY_BOUND).until(() -> namespace.listRequests().count() >= count);
        return namespace.listRequests().entries();
    }

    /** Each documented response, e.g. {@code 400 invalid_body ×1} or {@code 401 never}. */
    private static List<String> responses(OperationCoverage operation) {
        return operation.responses().stream().map(r -> r.label() + (r.exercised() ? " ×" + r.calls() : " never")).toList();
    }
}
