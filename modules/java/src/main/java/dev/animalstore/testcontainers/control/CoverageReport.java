package dev.animalstore.testcontainers.control;

import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The answer of getCoverage: what the calls made covered of the Animal Store API's contract. Every call is counted as
 * it is answered, whatever the journal keeps: one namespace's since it was made, reset or its journal cleared; for
 * every namespace, the whole run's since the start, namespaces deleted or evicted included.
 *
 * @param reportVersion 1; a new version may add fields, never change one's meaning
 * @param namespace the namespace reported on; null when the report spans every namespace
 * @param namespaces the namespaces in memory reported on (those deleted or evicted are counted, not named)
 * @param operations each operation of the API, in the spec's order
 * @param deprecatedCalls the deprecated operations called, with their sunset and replacement
 * @param unstableCalls the experimental or beta operations called
 * @param unmatched the requests no operation matched, by method, path and status
 * @param invalid the requests an operation refused for breaking the spec (400, 413, 415), not forced by a fault
 */
public record CoverageReport(
    int reportVersion,
    Instant generatedAt,
    String namespace,
    List<String> namespaces,
    Summary summary,
    List<OperationCoverage> operations,
    List<DeprecatedCall> deprecatedCalls,
    List<UnstableCall> unstableCalls,
    Unmatched unmatched,
    Invalid invalid
) {

    /**
     * The report's totals.
     *
     * @param calls calls counted, unmatched ones included
     * @param responses documented responses (a 400 counts once per Error code the sandbox answers)
     * @param exercised documented responses exercised at least once
     * @param unauthenticatedDropped requests without a valid API key the journals no longer hold, counted all the same
     * @param journalDropped entries the journals dropped to stay within their size, counted all the same
     * @param namespacesDeleted for every namespace, those deleted since the start (their calls still counted); 0 for
     *     one namespace
     * @param namespacesEvicted for every namespace, those evicted past the sandbox's maximum since the start (their
     *     calls still counted); 0 for one namespace
     */
    public record Summary(
        int calls,
        int operations,
        int responses,
        int exercised,
        int unmatched,
        int invalid,
        int deprecatedCalls,
        int unstableCalls,
        int unauthenticatedDropped,
        int journalDropped,
        int namespacesDeleted,
        int namespacesEvicted
    ) {}

    /**
     * Calls of a deprecated operation.
     *
     * @param sunset when the operation goes away (answers 410), or null
     * @param replacement the path to use instead, with the API's base path, or null
     */
    public record DeprecatedCall(String operationId, String method, String path, int calls, Instant sunset, String replacement) {}

    /** Calls of an operation whose stability is {@code experimental} or {@code beta}. */
    public record UnstableCall(String operationId, String method, String path, String stability, int calls) {}

    /** The requests no operation matched. */
    public record Unmatched(int count, List<UnmatchedRequest> requests) {}

    /** @param status null when a fault closed the connection without an answer */
    public record UnmatchedRequest(String method, String path, Integer status, int calls) {}

    /** The requests refused for breaking the spec. */
    public record Invalid(int count, List<InvalidRequest> requests) {}

    /** One refused request, with its journal id and the code and message of its Error body. */
    public record InvalidRequest(
        long id,
        String namespace,
        String operationId,
        String method,
        String path,
        int status,
        String code,
        String message
    ) {}

    /**
     * The coverage of one operation.
     *
     * @throws IllegalArgumentException when the API has no such operation
     */
    public OperationCoverage operation(String operationId) {
        return operations
            .stream()
            .filter(operation -> operation.operationId().equals(operationId))
            .findFirst()
            .orElseThrow(() ->
                new IllegalArgumentException(
                    "the API has no operation " + operationId + "; it has " +
                    operations.stream().map(OperationCoverage::operationId).collect(Collectors.joining(", "))
                )
            );
    }

    /**
     * Fails unless every documented response of the operations named (of every operation when none is named) was
     * exercised.
     *
     * @throws AssertionError listing, for each operation, the responses never exercised
     */
    public void assertAllResponsesExercised(String... operationIds) {
        List<OperationCoverage> checked = operationIds.length == 0 ? operations : Arrays.stream(operationIds).map(this::operation).toList();
        List<String> missing = new ArrayList<>();
        for (OperationCoverage operation : checked) {
            List<String> labels = operation.unexercisedResponses().stream().map(OperationCoverage.ResponseCoverage::label).toList();
            if (!labels.isEmpty()) {
                missing.add(operation.describe() + ": " + String.join(", ", labels));
            }
        }
        if (!missing.isEmpty()) {
            throw new AssertionError(failure("documented responses never exercised", missing));
        }
    }

    /** @throws AssertionError listing each deprecated operation called, with its sunset and replacement */
    public void assertNoDeprecatedCalls() {
        if (!deprecatedCalls.isEmpty()) {
            throw new AssertionError(failure("deprecated operations called", deprecatedCalls.stream().map(CoverageReport::describe).toList()));
        }
    }

    /** e.g. {@code getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead} */
    private static String describe(DeprecatedCall call) {
        return (
            call.operationId() + " (" + call.method() + " " + call.path() + "): " + call.calls() + (call.calls() == 1 ? " call" : " calls") +
            (call.sunset() == null ? "" : ", sunset " + call.sunset().atOffset(ZoneOffset.UTC).toLocalDate()) +
            (call.replacement() == null ? "" : ", use " + call.replacement() + " instead")
        );
    }

    private String failure(String what, List<String> lines) {
        String scope = namespace == null ? "every namespace" : "namespace " + namespace;
        return what + " (" + scope + "):\n- " + String.join("\n- ", lines);
    }
}
