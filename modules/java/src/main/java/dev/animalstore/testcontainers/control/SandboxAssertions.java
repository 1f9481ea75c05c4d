package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.stream.Collectors;

/** Opt-in assertions on a coverage report or a verify result: each fails with what is missing, one line each. */
public final class SandboxAssertions {

    private SandboxAssertions() {}

    /**
     * Every documented response of the operations named (of every operation when none is) was exercised, but those only
     * malformed HTTP or JSON causes ({@code reachable} false; a sandbox older than the field sends none, and every
     * response counts).
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
        List<String> missing = operations
            .stream()
            .filter(operation -> operationIds.length == 0 || List.of(operationIds).contains(operation.get("operationId").asText()))
            .map(operation -> describe(operation) + ": " + operation.get("responses").valueStream().filter(response -> response.path("reachable").asBoolean(true) && !response.get("exercised").asBoolean()).map(response -> response.get("label").asText()).collect(Collectors.joining(", ")))
            .filter(line -> !line.endsWith(": "))
            .toList();
        fail(coverageReport, "documented responses never exercised", missing);
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
