package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Stream;

/** Opt-in assertions on a coverage report or a verify result: each fails with what is missing, one line each. */
public final class SandboxAssertions {

    private SandboxAssertions() {}

    /**
     * Every documented response of the operations named (of every operation when none is) was exercised, but those only
     * malformed HTTP or JSON causes ({@code reachable} false); else the sandbox's message: the report's, or the lines of
     * the operations named.
     *
     * @throws IllegalArgumentException when the API has no such operation
     */
    public static void assertAllResponsesExercised(JsonNode coverageReport, String... operationIds) {
        List<JsonNode> operations = coverageReport.get("operations").valueStream().toList();
        List<String> known = operations.stream().map(operation -> operation.get("operationId").asText()).toList();
        for (String operationId : operationIds) {
            if (!known.contains(operationId)) {
                throw new IllegalArgumentException("the API has no operation " + operationId + "; it has " + String.join(", ", known));
            }
        }
        List<JsonNode> asked = operationIds.length == 0 ? List.of(coverageReport)
            : Stream.of(operationIds).map(operationId -> operations.get(known.indexOf(operationId))).toList();
        List<String> failed = asked.stream().filter(scope -> !scope.get("complete").asBoolean()).map(scope -> scope.get("message").asText()).toList();
        if (!failed.isEmpty()) {
            throw new AssertionError(String.join("\n", failed));
        }
    }

    /** No deprecated operation was called. */
    public static void assertNoDeprecatedCalls(JsonNode coverageReport) {
        List<String> calls = coverageReport
            .get("deprecatedCalls")
            .valueStream()
            .map(call -> describe(call) + ": " + call.get("calls").asInt() + (call.get("calls").asInt() == 1 ? " call" : " calls")
                + (call.get("sunset").isNull() ? "" : ", sunset " + call.get("sunset").asText().substring(0, 10))
                + (call.get("replacement").isNull() ? "" : ", use " + call.get("replacement").asText() + " instead"))
            .toList();
        fail(coverageReport, "deprecated operations called", calls);
    }

    /** The verification passed; else the sandbox's message, each failed expectation with its closest calls. */
    public static void assertPassed(JsonNode verifyResult) {
        if (!verifyResult.get("passed").asBoolean()) {
            throw new AssertionError("verification (" + scope(verifyResult) + ") " + verifyResult.get("message").asText());
        }
    }

    /** e.g. {@code createPet (POST /v1/pets)} */
    private static String describe(JsonNode operation) {
        return operation.get("operationId").asText() + " (" + operation.get("method").asText() + " " + operation.get("path").asText() + ")";
    }

    private static void fail(JsonNode answer, String what, List<String> lines) {
        if (!lines.isEmpty()) {
            throw new AssertionError(what + " (" + scope(answer) + "):\n- " + String.join("\n- ", lines));
        }
    }

    private static String scope(JsonNode answer) {
        return answer.path("namespace").isTextual() ? "namespace " + answer.get("namespace").asText() : "every namespace";
    }
}
