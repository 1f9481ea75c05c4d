package dev.animalstore.testcontainers.control;

import java.time.Instant;
import java.util.List;

/**
 * The coverage of one operation of the Animal Store API.
 *
 * @param path the path with the API's base path, e.g. {@code /v1/pets/{petId}}
 * @param stability {@code experimental}, {@code beta} or {@code stable}
 * @param sunset when a deprecated operation goes away, or null
 * @param replacement the path to use instead, with the base path, or null
 * @param responses each documented response, in the spec's order; a 400 once per Error code the sandbox answers
 * @param undocumented answers no documented response covers
 * @param unanswered calls a fault closed without an answer
 * @param parameters the query parameters, with the values and bounds sent
 */
public record OperationCoverage(
    String operationId,
    String method,
    String path,
    String stability,
    boolean deprecated,
    Instant sunset,
    String replacement,
    int calls,
    List<ResponseCoverage> responses,
    List<UndocumentedAnswer> undocumented,
    int unanswered,
    List<ParameterCoverage> parameters
) {

    /**
     * One documented response.
     *
     * @param status as the spec writes it: {@code 201}, {@code 400}, {@code default}
     * @param code for a 400, the Error code; null otherwise
     * @param label e.g. {@code 400 invalid_body}
     * @param forced of the calls, those answered by a fault or a Prefer header
     */
    public record ResponseCoverage(String status, String code, String label, boolean exercised, int calls, int forced) {}

    /** An answer no documented response covers, e.g. a 410 after the sunset. */
    public record UndocumentedAnswer(int status, String code, int calls) {}

    /**
     * A query parameter: the values worth trying, sent or not, and the other values sent.
     *
     * @param values each enum value, the bounds, and the default (or the parameter left out)
     */
    public record ParameterCoverage(String name, List<Value> values, List<OtherValue> others) {

        /**
         * @param value null for the parameter left out
         * @param kind {@code enum}, {@code minimum}, {@code maximum}, {@code default} or {@code omitted}
         * @param label e.g. {@code default (20)}
         */
        public record Value(String value, String kind, String label, int calls) {}

        public record OtherValue(String value, int calls) {}
    }

    /** The documented responses never exercised, in the spec's order. */
    public List<ResponseCoverage> unexercisedResponses() {
        return responses.stream().filter(response -> !response.exercised()).toList();
    }

    /** e.g. {@code createPet (POST /v1/pets)} */
    String describe() {
        return operationId + " (" + method + " " + path + ")";
    }
}
