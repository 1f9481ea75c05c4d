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
import java.util.stream.Stream;

/**
 * The control API's calls ({@code spec/admin.openapi.yaml}) on one namespace, each named after its operationId, plus
 * the headers that send the test's own API calls there. Bodies are any value Jackson writes (a Map, a record, a
 * JsonNode) and answers are the JSON the spec documents, as {@link JsonNode}; query parameters go by the spec's
 * names. Get one from {@link AnimalStoreControlClient#namespace(String)}.
 */
public class NamespaceControl {

    public static final String NAMESPACE_HEADER = "X-Sandbox-Namespace";

    static final ObjectMapper JSON = new ObjectMapper();

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    final URI sandboxUrl;

    final String adminToken;

    final String apiKey;

    /** Null for the default namespace: the calls then send none, as a test without namespaces would. */
    private final String namespace;

    NamespaceControl(URI sandboxUrl, String adminToken, String apiKey, String namespace) {
        this.sandboxUrl = sandboxUrl;
        this.adminToken = adminToken;
        this.apiKey = apiKey;
        this.namespace = namespace;
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
        Map<String, String> snapshot = new LinkedHashMap<>(Map.of("name", name));
        if (namespace != null) {
            snapshot.put("namespace", namespace);
        }
        return json("POST /__admin/snapshots", send("POST", "snapshots", Map.of(), snapshot, "application/json", true));
    }

    public JsonNode listRequests() {
        return listRequests(Map.of());
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

    /** Every entry that matches the filters, oldest first, fetched a page at a time as the stream is read. */
    public Stream<JsonNode> streamRequests(Map<String, ?> filters) {
        return Stream
            .iterate(listRequests(filters), page -> page != null, page -> page.get("next").isNull() ? null : listRequests(after(filters, page)))
            .flatMap(page -> page.get("entries").valueStream());
    }

    public JsonNode clearRequests() {
        return call("DELETE", "requests", Map.of(), null);
    }

    public JsonNode listUnmatchedRequests() {
        return listUnmatchedRequests(Map.of());
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
        return send("GET", "coverage", markdown, null, "text/markdown", false);
    }

    public JsonNode getDrift() {
        return call("GET", "drift", Map.of(), null);
    }

    /** The calls the namespace received as a Pact (V4); {@code consumer} and {@code provider} name its parties. */
    public JsonNode exportPact(Map<String, ?> query) {
        return call("GET", "pact", query, null);
    }

    /** @param request {@code expectations} and {@code strict}, e.g. {@code Map.of("expectations", List.of(Map.of("operationId", "getPet", "count", 1)))} */
    public JsonNode verify(Object request) {
        return verify(Map.of(), request);
    }

    /** @param query e.g. {@code Map.of("traceId", id)}: the calls of one trace alone */
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
        SandboxAssertions.assertPassed(verify(Map.of("expectations", List.of(expectations))));
    }

    /** As {@link #assertVerified(Object...)}, and any call no expectation matched fails it. */
    public void assertVerifiedStrictly(Object... expectations) {
        SandboxAssertions.assertPassed(verify(Map.of("expectations", List.of(expectations), "strict", true)));
    }

    @Override
    public String toString() {
        return "NamespaceControl[" + name() + " at " + sandboxUrl + "]";
    }

    private static Map<String, Object> after(Map<String, ?> filters, JsonNode page) {
        Map<String, Object> query = new LinkedHashMap<>(filters);
        query.put("after", page.get("next").asLong());
        return query;
    }

    JsonNode call(String method, String path, Map<String, ?> query, Object body) {
        return json(method + " /__admin/" + path, send(method, path, query, body, "application/json", false));
    }

    private static JsonNode json(String request, String answer) {
        try {
            return JSON.readTree(answer);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(request + " answered no JSON: " + answer, e);
        }
    }

    /** {@code method /__admin/path} with the namespace's parameter (none for the default, or when it is in the body). */
    private String send(String method, String path, Map<String, ?> query, Object body, String accept, boolean namespaceInBody) {
        Map<String, Object> parameters = new LinkedHashMap<>(query);
        if (namespace != null && !namespaceInBody) {
            parameters.put("namespace", namespace);
        }
        String queryString = parameters
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
            var response = HTTP.send(request.build(), BodyHandlers.ofString());
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
