package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;

/**
 * The control API's calls ({@code spec/admin.openapi.yaml}) on one namespace, each named after its operationId, plus
 * the headers that send the test's own API calls there. Bodies are any value Jackson writes (a Map, a record, a
 * JsonNode) and answers are the JSON the spec documents, as {@link JsonNode}; query parameters go by the spec's
 * names. Get one from {@link AnimalStoreControlClient#namespace(String)}.
 */
public class NamespaceControl {

    public static final String NAMESPACE_HEADER = "X-Sandbox-Namespace";

    static final ObjectMapper JSON = new ObjectMapper();

    /** The JVM's default trust: one client for every control client that brings no SSLContext. */
    private static final HttpClient DEFAULT_HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    final URI sandboxUrl;

    final String adminToken;

    final String apiKey;

    final HttpClient http;

    /** Null for the default namespace: the calls then send none, as a test without namespaces would. */
    private final String namespace;

    NamespaceControl(URI sandboxUrl, String adminToken, String apiKey, HttpClient http, String namespace) {
        this.sandboxUrl = sandboxUrl;
        this.adminToken = adminToken;
        this.apiKey = apiKey;
        this.http = http;
        this.namespace = namespace;
    }

    /** A client that trusts what {@code sslContext} trusts, or the JVM's default trust when it is null. */
    static HttpClient httpClient(SSLContext sslContext) {
        return sslContext == null ? DEFAULT_HTTP : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(sslContext).build();
    }

    /** The namespace's name, as the sandbox calls it. */
    public String name() {
        return namespace == null ? "default" : namespace;
    }

    /** {@code Authorization} with the API key and, but for the default namespace, {@value #NAMESPACE_HEADER}. */
    public Map<String, String> apiHeaders() {
        return namespace == null ? Map.of("Authorization", "Bearer " + apiKey) : Map.of("Authorization", "Bearer " + apiKey, NAMESPACE_HEADER, namespace);
    }

    public JsonNode reset() {
        return reset(Map.of());
    }

    /** @param options e.g. {@code Map.of("seed", 3, "count", 10)} or {@code Map.of("snapshot", "checkout-fixture")} */
    public JsonNode reset(Object options) {
        return call("POST", "reset", Map.of(), options);
    }

    public JsonNode exportPets() {
        return call("GET", "pets", Map.of(), null);
    }

    public JsonNode replacePets(Object pets) {
        return call("PUT", "pets", Map.of(), pets);
    }

    /** Freezes the namespace's pets and clock under {@code name}, for {@code reset(Map.of("snapshot", name))}. */
    public JsonNode createSnapshot(String name) {
        // The namespace goes in the body here, not the query.
        Map<String, String> snapshot = namespace == null ? Map.of("name", name) : Map.of("name", name, "namespace", namespace);
        return parse(send("POST", "snapshots", Map.of(), snapshot, "application/json"));
    }

    /** @param query filters and page, e.g. {@code Map.of("operationId", "createPet", "limit", 500, "after", page.get("next"))} */
    public JsonNode listRequests(Map<String, ?> query) {
        return call("GET", "requests", query, null);
    }

    /** How many requests match the filters: the journal's cheapest check, no entry is sent. */
    public int countRequests(Map<String, ?> filters) {
        Map<String, Object> query = new LinkedHashMap<>(filters);
        query.put("limit", 0);
        return listRequests(query).get("count").asInt();
    }

    public JsonNode clearRequests() {
        return call("DELETE", "requests", Map.of(), null);
    }

    /** @param query the page: {@code limit}, {@code after} */
    public JsonNode listUnmatchedRequests(Map<String, ?> query) {
        return call("GET", "requests/unmatched", query, null);
    }

    /** @param fault e.g. {@code Map.of("operationId", "listPets", "status", 503, "times", 1)} */
    public JsonNode addFault(Object fault) {
        return call("POST", "faults", Map.of(), fault);
    }

    public JsonNode listFaults() {
        return call("GET", "faults", Map.of(), null);
    }

    public JsonNode clearFaults() {
        return call("DELETE", "faults", Map.of(), null);
    }

    public JsonNode getClock() {
        return call("GET", "clock", Map.of(), null);
    }

    /** Moves the namespace's clock to {@code now}; from there it runs at the real pace. */
    public JsonNode setClock(Instant now) {
        return call("POST", "clock", Map.of(), Map.of("now", now.toString()));
    }

    public JsonNode resetClock() {
        return call("DELETE", "clock", Map.of(), null);
    }

    public JsonNode getCoverage() {
        return getCoverage(Map.of());
    }

    /** @param query e.g. {@code Map.of("traceId", id)}, or on the client {@code Map.of("all", true)} */
    public JsonNode getCoverage(Map<String, ?> query) {
        return call("GET", "coverage", query, null);
    }

    /** The report as Markdown, an operations × responses table for people (e.g. a CI summary). */
    public String getCoverageMarkdown(Map<String, ?> query) {
        Map<String, Object> markdown = new LinkedHashMap<>(query);
        markdown.put("format", "markdown");
        return send("GET", "coverage", inNamespace(markdown), null, "text/markdown");
    }

    public JsonNode getDrift() {
        return call("GET", "drift", Map.of(), null);
    }

    /** The calls the namespace received as a Pact (V4); {@code consumer} and {@code provider} name its parties. */
    public JsonNode exportPact(Map<String, ?> query) {
        return call("GET", "pact", query, null);
    }

    /**
     * @param query e.g. {@code Map.of("traceId", id)}: the calls of one trace alone
     * @param request {@code expectations} and {@code strict}, e.g. {@code Map.of("expectations", List.of(Map.of("operationId", "getPet", "count", 1)))}
     */
    public JsonNode verify(Map<String, ?> query, Object request) {
        return call("POST", "verify", query, request);
    }

    /** @throws AssertionError listing, for each operation named (every one when none is), the responses never exercised */
    public void assertAllResponsesExercised(String... operationIds) {
        SandboxAssertions.assertAllResponsesExercised(getCoverage(), operationIds);
    }

    /** @throws AssertionError listing each deprecated operation called, with its sunset and replacement */
    public void assertNoDeprecatedCalls() {
        SandboxAssertions.assertNoDeprecatedCalls(getCoverage());
    }

    /** @throws AssertionError with the sandbox's account of each failed expectation and its closest calls */
    public void assertVerified(Object... expectations) {
        SandboxAssertions.assertPassed(verify(Map.of(), Map.of("expectations", List.of(expectations))));
    }

    /** As {@link #assertVerified(Object...)}, and any call no expectation matched fails it. */
    public void assertVerifiedStrictly(Object... expectations) {
        SandboxAssertions.assertPassed(verify(Map.of(), Map.of("expectations", List.of(expectations), "strict", true)));
    }

    /** {@code method /__admin/path} in this namespace (none for the default). */
    JsonNode call(String method, String path, Map<String, ?> query, Object body) {
        return parse(send(method, path, inNamespace(query), body, "application/json"));
    }

    private Map<String, ?> inNamespace(Map<String, ?> query) {
        if (namespace == null) {
            return query;
        }
        Map<String, Object> scoped = new LinkedHashMap<>(query);
        scoped.put("namespace", namespace);
        return scoped;
    }

    private static JsonNode parse(String answer) {
        try {
            return JSON.readTree(answer);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("the control API answered no JSON: " + answer, e);
        }
    }

    String send(String method, String path, Map<String, ?> query, Object body, String accept) {
        String queryString = query
            .entrySet()
            .stream()
            .map(entry -> entry.getKey() + "=" + URLEncoder.encode(String.valueOf(entry.getValue()), StandardCharsets.UTF_8))
            .collect(Collectors.joining("&"));
        String target = "__admin/" + path + (queryString.isEmpty() ? "" : "?" + queryString);
        HttpRequest.Builder request = HttpRequest
            .newBuilder(URI.create(sandboxUrl.toString().replaceAll("/*$", "/")).resolve(target))
            .header("Authorization", "Bearer " + adminToken)
            .header("Accept", accept);
        try {
            if (body == null) {
                request.method(method, BodyPublishers.noBody());
            } else {
                request.header("Content-Type", "application/json").method(method, BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)));
            }
            var response = http.send(request.build(), BodyHandlers.ofString());
            if (response.statusCode() / 100 != 2) {
                throw new AnimalStoreControlException(method + " /" + target, response.statusCode(), response.body());
            }
            return response.body();
        } catch (IOException e) {
            throw new UncheckedIOException(method + " /" + target + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + " /" + target + " was interrupted", e);
        }
    }
}
