package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The answer of verify: whether the namespace's journal holds the calls expected.
 *
 * @param passed false when it failed, and when it is incomplete
 * @param incomplete whether the answer depends on entries the journal dropped since the namespace was made, reset or
 *     its journal cleared: then it did not pass, and the message says which expectations could not be decided
 * @param journalDropped entries of this namespace the journal dropped since it was made, reset or cleared
 * @param checked journal entries read
 * @param expectations each expectation's outcome, in the order given
 * @param unexpected in strict mode, the entries no expectation matched
 * @param message the outcome for people, one line per failed expectation or unexpected call
 */
public record VerifyResult(
    String namespace,
    boolean passed,
    boolean incomplete,
    int journalDropped,
    boolean strict,
    int checked,
    List<ExpectationResult> expectations,
    List<EntrySummary> unexpected,
    String message
) {

    /**
     * The outcome of one expectation.
     *
     * @param index its position in the request
     * @param incomplete whether its outcome depends on calls of its operation the journal dropped (then it did not
 *     pass); one without body and headers is decided by the counts of every call, never incomplete
 * @param expected the count wanted, in words, e.g. {@code exactly 1}
     * @param matched journal entries that matched its operation, body and headers
     * @param matchedEntries their ids
     * @param closest when it failed for want of a match, the entries of its operation that came closest, fewest
     *     differences first (at most 3)
     * @param message e.g. {@code createPet: expected exactly 1 call of createPet with the body and headers given, found 0; closest: ...}
     */
    public record ExpectationResult(
        int index,
        String operationId,
        boolean passed,
        boolean incomplete,
        String expected,
        int matched,
        List<Long> matchedEntries,
        List<Closest> closest,
        String message
    ) {}

    /** A journal entry that came close, and how it differs. */
    public record Closest(EntrySummary entry, List<Difference> differences) {}

    /**
     * One field where a call differs from an expectation.
     *
     * @param in {@code body} or {@code header}
     * @param pointer a JSON Pointer into the body (empty for the whole body), or the header's name
     * @param actual the value found there; null when there was none (a JSON null is a null node)
     * @param message e.g. {@code createPet body /categoryId: expected 3, got "3"}
     */
    public record Difference(String in, String pointer, JsonNode expected, JsonNode actual, String message) {}

    /** @param status null when a fault closed the connection without an answer */
    public record EntrySummary(long id, String method, String path, Integer status, String operationId) {

        /** e.g. {@code #4 GET /v1/pets → 200 (listPets)} */
        @Override
        public String toString() {
            return "#" + id + " " + method + " " + path + " → " + (status == null ? "no answer" : status) + " (" + operationId + ")";
        }
    }

    /** @throws AssertionError with each failed expectation (its closest calls and their differences) and each unexpected call */
    public void assertPassed() {
        if (passed) {
            return;
        }
        List<String> failures = new ArrayList<>();
        expectations.stream().filter(result -> !result.passed()).forEach(result -> failures.add(result.message()));
        unexpected.forEach(entry -> failures.add("unexpected call (strict): " + entry));
        // One item per failure; an item's own lines (the closest calls) indented under it.
        throw new AssertionError(
            "verification failed (namespace " + namespace + "):\n" +
            failures.stream().map(failure -> "- " + failure.replace("\n", "\n  ")).collect(Collectors.joining("\n"))
        );
    }
}
