package dev.animalstore.testcontainers.control;

import dev.animalstore.testcontainers.control.model.AwaitResult;
import dev.animalstore.testcontainers.control.model.CoverageReport;
import dev.animalstore.testcontainers.control.model.OperationCoverage;
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

    /** No deprecated operation was called; else the sandbox's message, each one called with its sunset and replacement. */
    public static void assertNoDeprecatedCalls(CoverageReport coverageReport) {
        if (!coverageReport.getDeprecatedCalls().isEmpty()) {
            throw new AssertionError(coverageReport.getDeprecatedCallsMessage());
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

    /** The report holds no stray call; else the sandbox's message, each one line each. */
    public static void assertNoStrayCalls(StrayReport strayReport) {
        if (!strayReport.getStrays().isEmpty()) {
            throw new AssertionError(strayReport.getMessage());
        }
    }

    private static String scope(String namespace) {
        return namespace == null ? "every namespace" : "namespace " + namespace;
    }
}
