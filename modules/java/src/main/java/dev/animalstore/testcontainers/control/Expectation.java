package dev.animalstore.testcontainers.control;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A call a test expected, for verify: the journal entries of {@code operationId} whose body contains {@code body} and
 * whose headers include {@code headers} are counted against {@code count}, or {@code min} and {@code max} (at least
 * one when none is set). Start from {@link #calls(String)}; null fields are not sent.
 *
 * <pre>{@code
 * Expectation.calls("createPet").times(1).withBody(Map.of("categoryId", 3))
 * Expectation.calls("getPet").never()
 * }</pre>
 *
 * @param operationId an operationId of the Animal Store API, or {@code unmatched}
 * @param body a JSON value (a Map, a record, a JsonNode...) the request body must contain: objects as subsets, arrays
 *     element by element, anything else equal, type included (3 is not "3")
 * @param headers request headers the call must carry, names in any case, values exact
 */
public record Expectation(String operationId, Integer count, Integer min, Integer max, Object body, Map<String, String> headers) {

    /** At least one call of this operation, until a count or bounds are set. */
    public static Expectation calls(String operationId) {
        return new Expectation(operationId, null, null, null, null, null);
    }

    /** Exactly {@code count} matching calls. */
    public Expectation times(int count) {
        return new Expectation(operationId, count, null, null, body, headers);
    }

    /** No matching call. */
    public Expectation never() {
        return times(0);
    }

    public Expectation atLeast(int min) {
        return new Expectation(operationId, null, min, max, body, headers);
    }

    public Expectation atMost(int max) {
        return new Expectation(operationId, null, min, max, body, headers);
    }

    public Expectation withBody(Object body) {
        return new Expectation(operationId, count, min, max, body, headers);
    }

    public Expectation withHeader(String name, String value) {
        Map<String, String> more = headers == null ? new LinkedHashMap<>() : new LinkedHashMap<>(headers);
        more.put(name, value);
        return new Expectation(operationId, count, min, max, body, Map.copyOf(more));
    }
}
