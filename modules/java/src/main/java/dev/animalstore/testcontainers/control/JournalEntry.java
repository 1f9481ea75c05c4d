package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * One request a namespace received.
 *
 * @param query each query parameter's values (the sandbox sends a lone value as a string: it is read as a list of one)
 * @param headers the request's headers, the Authorization header and any configured key redacted
 * @param body the JSON body as sent, a text node when it was not JSON, a null node when there was none
 * @param status null when a fault closed the connection without an answer
 * @param operationId the operation matched, or {@code unmatched}
 * @param fault the fault or Prefer header that shaped the answer, or null
 * @param error the code and message of the Error body answered, or null for any other answer
 * @param traceId the trace id of the request's W3C {@code traceparent}, or null when it sent none valid
 */
public record JournalEntry(
    long id,
    Instant time,
    String namespace,
    String method,
    String path,
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) Map<String, List<String>> query,
    Map<String, String> headers,
    JsonNode body,
    Integer status,
    double durationMs,
    String operationId,
    String fault,
    AnsweredError error,
    String traceId
) {

    /** The Error body a request was answered with. */
    public record AnsweredError(String code, String message) {}
}
