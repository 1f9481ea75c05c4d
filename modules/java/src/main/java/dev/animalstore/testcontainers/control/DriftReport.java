package dev.animalstore.testcontainers.control;

import java.util.List;
import java.util.Map;

/**
 * The answer of getDrift: how the sandbox's answers differed from the real API's.
 *
 * @param namespace the namespace reported on
 * @param upstream the real API's base URL (never its key); null without {@code UPSTREAM}
 * @param mode compare, record, passthrough, or off without {@code UPSTREAM}
 * @param compared requests sent to both and compared
 * @param skipped requests not compared: unsafe ones, or past the bound of those waiting
 * @param count the differences found (the list keeps the last 1000)
 * @param operations per operationId, the requests compared and the differences found
 * @param differences each difference, oldest first
 */
public record DriftReport(
    String namespace,
    String upstream,
    String mode,
    int compared,
    int skipped,
    int count,
    Map<String, OperationDrift> operations,
    List<Drift> differences) {

    /** One operation's requests compared and differences found. */
    public record OperationDrift(int compared, int differences) {}

    /**
     * One difference.
     *
     * @param pointer a JSON pointer into the answer: /status, /headers/&lt;name&gt;, /body/...
     * @param kind status, header, value, type, missing-in-sandbox, missing-upstream, unreadable-upstream,
     *     upstream-unreachable or upstream-timeout
     * @param sandbox the sandbox's value
     * @param upstream the upstream's value, or why it gave none
     */
    public record Drift(
        String operationId, Request request, String pointer, String kind, Object sandbox, Object upstream, String time) {}

    /** The request a difference came from: its method, and its path and query below the base URL. */
    public record Request(String method, String target) {}
}
