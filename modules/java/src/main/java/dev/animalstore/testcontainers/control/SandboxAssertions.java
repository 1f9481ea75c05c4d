package dev.animalstore.testcontainers.control;

import dev.animalstore.testcontainers.control.model.AwaitResult;
import dev.animalstore.testcontainers.control.model.CoverageReport;
import dev.animalstore.testcontainers.control.model.DeprecatedCall;
import dev.animalstore.testcontainers.control.model.OperationCoverage;
import dev.animalstore.testcontainers.control.model.StrayCall;
import dev.animalstore.testcontainers.control.model.StrayReport;
import dev.animalstore.testcontainers.control.model.VerifyResult;
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
    public static void assertAllResponsesExercised(CoverageReport coverageReport, String... operationIds) {
        List<OperationCoverage> operations = coverageReport.getOperations();
        List<String> known = operations.stream().map(OperationCoverage::getOperationId).toList();
        for (String operationId : operationIds) {
            if (!known.contains(operationId)) {
                throw new IllegalArgumentException("the API has no operation " + operationId + "; it has " + String.join(", ", known));
            }
        }
        List<String> failed = operationIds.length == 0
            ? (coverageReport.getComplete() ? List.of() : List.of(coverageReport.getMessage()))
            : Stream.of(operationIds).map(operationId -> operations.get(known.indexOf(operationId))).filter(operation -> !operation.getComplete())
                .map(OperationCoverage::getMessage).toList();
        if (!failed.isEmpty()) {
            throw new AssertionError(String.join("\n", failed));
        }
    }

    /** No deprecated operation was called. */
    public static void assertNoDeprecatedCalls(CoverageReport coverageReport) {
        List<String> calls = coverageReport
            .getDeprecatedCalls()
            .stream()
            .map(call -> describe(call) + ": " + call.getCalls() + (call.getCalls() == 1 ? " call" : " calls")
                + (call.getSunset() == null ? "" : ", sunset " + call.getSunset().toLocalDate())
                + (call.getReplacement() == null ? "" : ", use " + call.getReplacement() + " instead"))
            .toList();
        if (!calls.isEmpty()) {
            throw new AssertionError("deprecated operations called (" + scope(coverageReport.getNamespace()) + "):\n- " + String.join("\n- ", calls));
        }
    }

    /** The verification passed; else the sandbox's message, each failed expectation with its closest calls. */
    public static void assertPassed(VerifyResult verifyResult) {
        if (!verifyResult.getPassed()) {
            throw new AssertionError("verification (" + scope(verifyResult.getNamespace()) + ") " + verifyResult.getMessage());
        }
    }

    /** The wait passed; else the sandbox's message, as {@link #assertPassed(VerifyResult)} gives it, and what ended the wait. */
    public static void assertAwaited(AwaitResult awaitResult) {
        if (!awaitResult.getPassed()) {
            throw new AssertionError("verification (" + scope(awaitResult.getNamespace()) + ") " + awaitResult.getMessage()
                + " (the wait ended by " + awaitResult.getEndedBy().getValue() + " after " + awaitResult.getWaitedMs() + " ms)");
        }
    }

    /** The report holds no stray call; else each, one line each. */
    public static void assertNoStrayCalls(StrayReport strayReport) {
        List<StrayCall> strays = strayReport.getStrays();
        if (!strays.isEmpty()) {
            String tests = String.join(", ", strays.stream().map(call -> call.getTest() == null ? "none" : call.getTest()).distinct().sorted().toList());
            throw new AssertionError("stray calls (test " + tests + "):\n- " + String.join("\n- ", strays.stream().map(SandboxAssertions::describe).toList()));
        }
    }

    /** e.g. {@code after-end: createPet (POST /v1/pets) answered 201, in namespace t1, trace 4bf9…} */
    private static String describe(StrayCall call) {
        Integer status = call.getEntry().getStatus();
        return call.getReason().getValue() + ": " + call.getEntry().getOperationId() + " (" + call.getEntry().getMethod() + " " + call.getEntry().getPath() + ") "
            + (status == null ? "had no answer" : "answered " + status) + ", in namespace " + call.getNamespace()
            + (call.getTraceId() == null ? "" : ", trace " + call.getTraceId());
    }

    /** e.g. {@code createPet (POST /v1/pets)} */
    private static String describe(DeprecatedCall call) {
        return call.getOperationId() + " (" + call.getMethod() + " " + call.getPath() + ")";
    }

    private static String scope(String namespace) {
        return namespace == null ? "every namespace" : "namespace " + namespace;
    }
}
