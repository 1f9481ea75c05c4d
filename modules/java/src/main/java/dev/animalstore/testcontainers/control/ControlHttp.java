package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** The control API's HTTP exchanges: URL, admin token, JSON both ways, Error bodies into exceptions. */
final class ControlHttp {

    /** Control calls answer at once: a fault's delay applies to API calls, never to these. */
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    static final ObjectMapper JSON = JsonMapper
        .builder()
        .addModule(new JavaTimeModule())
        // A newer sandbox may add fields: a client of this version keeps working.
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
        // Optional fields left null are omitted, as the spec's bodies expect.
        .defaultPropertyInclusion(JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))
        .build();

    private final HttpClient httpClient;

    private final URI sandboxUrl;

    private final URI adminUrl;

    private final String adminToken;

    private final String apiKey;

    ControlHttp(URI sandboxUrl, String adminToken, String apiKey, HttpClient httpClient) {
        String scheme = sandboxUrl.getScheme();
        if (!"http".equals(scheme) && !"https".equals(scheme)) {
            throw new IllegalArgumentException("the sandbox URL must be an http or https URL, got " + sandboxUrl);
        }
        this.sandboxUrl = sandboxUrl;
        // Resolved against the URL as a folder, so that a sandbox behind a path prefix works too.
        String root = sandboxUrl.toString();
        this.adminUrl = URI.create(root.endsWith("/") ? root : root + "/").resolve("__admin/");
        this.adminToken = requireText("admin token", adminToken);
        this.apiKey = requireText("API key", apiKey);
        this.httpClient = httpClient;
    }

    URI sandboxUrl() {
        return sandboxUrl;
    }

    String apiKey() {
        return apiKey;
    }

    /**
     * Calls {@code method /__admin/path} on the namespace (the default one when null) and reads the JSON answer.
     *
     * @throws AnimalStoreControlException when the sandbox answers with an error status
     */
    <T> T call(String method, String path, String namespace, Map<String, String> query, Object body, JavaType answer) {
        Exchange exchange = send(method, path, namespace, query, body, "application/json");
        try {
            return JSON.readValue(exchange.body(), answer);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(exchange.description() + " answered a body this client cannot read: " + exchange.body(), e);
        }
    }

    /**
     * Calls {@code GET /__admin/path} asking for the given media type, and returns the answer as text.
     *
     * @throws AnimalStoreControlException when the sandbox answers with an error status
     */
    String text(String path, String namespace, Map<String, String> query, String mediaType) {
        return send("GET", path, namespace, query, null, mediaType).body();
    }

    /** A request as the messages name it, e.g. {@code GET /__admin/coverage?namespace=a}, and its successful answer. */
    private record Exchange(String description, String body) {}

    private Exchange send(String method, String path, String namespace, Map<String, String> query, Object body, String accept) {
        Map<String, String> parameters = new LinkedHashMap<>(query);
        if (namespace != null) {
            parameters.put("namespace", namespace);
        }
        String queryString = parameters
            .entrySet()
            .stream()
            .map(entry -> encode(entry.getKey()) + "=" + encode(entry.getValue()))
            .collect(Collectors.joining("&"));
        URI uri = adminUrl.resolve(queryString.isEmpty() ? path : path + "?" + queryString);
        String description = method + " " + uri.getRawPath() + (queryString.isEmpty() ? "" : "?" + queryString);

        HttpRequest.Builder request = HttpRequest
            .newBuilder(uri)
            .timeout(REQUEST_TIMEOUT)
            .header("Authorization", "Bearer " + adminToken)
            .header("Accept", accept);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofByteArray(toJson(body)));
        }

        HttpResponse<String> response;
        try {
            response = httpClient.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(description + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(description + " was interrupted", e);
        }
        if (response.statusCode() / 100 != 2) {
            throw refusal(description, response);
        }
        return new Exchange(description, response.body());
    }

    private static AnimalStoreControlException refusal(String description, HttpResponse<String> response) {
        try {
            ErrorBody error = JSON.readValue(response.body(), ErrorBody.class);
            if (error.code() != null) {
                return new AnimalStoreControlException(description, response.statusCode(), error.code(), error.message());
            }
        } catch (JsonProcessingException notAnError) {
            // Not the sandbox's Error body (a proxy's page, say): the body itself is the message.
        }
        return new AnimalStoreControlException(description, response.statusCode(), "unknown", response.body());
    }

    /** The Error schema of the API spec. */
    private record ErrorBody(String code, String message) {}

    private static byte[] toJson(Object body) {
        try {
            return JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write " + body + " as JSON", e);
        }
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static String requireText(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("the " + what + " must not be empty");
        }
        return value;
    }
}
