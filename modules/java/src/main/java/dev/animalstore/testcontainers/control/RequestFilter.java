package dev.animalstore.testcontainers.control;

import java.time.Instant;

/**
 * Which journal entries listRequests returns: every filter that is set must match. Start from {@link #all()}.
 *
 * @param method the HTTP method, any case
 * @param path the exact path, e.g. {@code /v1/pets/3}; a final {@code *} matches any path starting with what precedes it
 * @param operationId the operation matched, or {@code unmatched}
 * @param status the status answered
 * @param since only requests received at or after this time
 * @param traceId only requests whose W3C {@code traceparent} carried this trace id (32 lowercase hex digits), whoever
 *     made them
 */
public record RequestFilter(String method, String path, String operationId, Integer status, Instant since, String traceId) {

    /** No filter: every entry. */
    public static RequestFilter all() {
        return new RequestFilter(null, null, null, null, null, null);
    }

    public RequestFilter withMethod(String method) {
        return new RequestFilter(method, path, operationId, status, since, traceId);
    }

    public RequestFilter withPath(String path) {
        return new RequestFilter(method, path, operationId, status, since, traceId);
    }

    public RequestFilter withOperationId(String operationId) {
        return new RequestFilter(method, path, operationId, status, since, traceId);
    }

    public RequestFilter withStatus(int status) {
        return new RequestFilter(method, path, operationId, status, since, traceId);
    }

    public RequestFilter withSince(Instant since) {
        return new RequestFilter(method, path, operationId, status, since, traceId);
    }

    public RequestFilter withTraceId(String traceId) {
        return new RequestFilter(method, path, operationId, status, since, traceId);
    }
}
