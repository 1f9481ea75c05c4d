package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.databind.JavaType;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The control API's calls on one namespace, plus the headers that send the test's own API calls to it. Get one
 * from {@link AnimalStoreControlClient#namespace(String)}; the client itself is the one of the default namespace.
 */
public class NamespaceControl {

    /** The API request header that chooses a namespace. */
    public static final String NAMESPACE_HEADER = "X-Sandbox-Namespace";

    /** What the sandbox calls the namespace of requests that choose none. */
    public static final String DEFAULT_NAMESPACE = "default";

    private static final Map<String, String> NO_QUERY = Map.of();

    static final String MARKDOWN = "text/markdown";

    static final Map<String, String> MARKDOWN_QUERY = Map.of("format", "markdown");

    final ControlHttp http;

    /** Null for the default namespace: the calls then omit the parameter, as a test without namespaces would. */
    private final String namespace;

    NamespaceControl(ControlHttp http, String namespace) {
        this.http = http;
        this.namespace = namespace;
    }

    /** The namespace's name. */
    public String name() {
        return namespace == null ? DEFAULT_NAMESPACE : namespace;
    }

    /**
     * The headers of an API call on this namespace: {@code Authorization} with the API key and, but for the default
     * namespace, {@value #NAMESPACE_HEADER}.
     */
    public Map<String, String> apiHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Authorization", "Bearer " + http.apiKey());
        if (namespace != null) {
            headers.put(NAMESPACE_HEADER, namespace);
        }
        return Collections.unmodifiableMap(headers);
    }

    /** Puts the namespace back to its initial pets, and clears its journal, faults and clock. */
    @ControlOperation("reset")
    public StateSummary reset() {
        return call("POST", "reset", NO_QUERY, null, StateSummary.class);
    }

    /**
     * Like {@link #reset()}, with pets generated from the options' seed and count, or a snapshot's pets and clock
     * ({@link ResetOptions#fromSnapshot(String)}), instead.
     */
    @ControlOperation("reset")
    public StateSummary reset(ResetOptions options) {
        return call("POST", "reset", NO_QUERY, options, StateSummary.class);
    }

    /** Every pet of the namespace, in id order. */
    @ControlOperation("exportPets")
    public List<Pet> exportPets() {
        return call("GET", "pets", NO_QUERY, null, ControlHttp.JSON.getTypeFactory().constructCollectionType(List.class, Pet.class));
    }

    /** Replaces every pet of the namespace; an invalid list is refused whole and changes nothing. */
    @ControlOperation("replacePets")
    public StateSummary replacePets(List<Pet> pets) {
        return call("PUT", "pets", NO_QUERY, pets, StateSummary.class);
    }

    /**
     * Freezes the namespace's pets and clock under {@code name}, a snapshot that namespaces can then start from
     * ({@link ResetOptions#fromSnapshot(String)}). A snapshot never changes; its name is taken until it is deleted
     * ({@link AnimalStoreControlClient#deleteSnapshot(String)}).
     */
    @ControlOperation("createSnapshot")
    public Snapshot createSnapshot(String name) {
        // The namespace goes in the body here, not the query; omitted, as elsewhere, for the default one.
        return http.call("POST", "snapshots", null, NO_QUERY, new NewSnapshot(name, namespace), ControlHttp.JSON.constructType(Snapshot.class));
    }

    /** The first page of the requests the namespace received (100, oldest first), and the count of all. */
    @ControlOperation("listRequests")
    public JournalPage listRequests() {
        return listRequests(RequestFilter.all());
    }

    /** The first page of the requests that match every filter set (100, oldest first), and the count of all that match. */
    @ControlOperation("listRequests")
    public JournalPage listRequests(RequestFilter filter) {
        return listRequests(filter, PageRequest.first());
    }

    /**
     * A page of the requests that match every filter set, oldest first, and the count of all that match: the next
     * page is {@code page.withAfter(answer.next())}.
     */
    @ControlOperation("listRequests")
    public JournalPage listRequests(RequestFilter filter, PageRequest page) {
        Map<String, String> query = new LinkedHashMap<>();
        putIfSet(query, "method", filter.method());
        putIfSet(query, "path", filter.path());
        putIfSet(query, "operationId", filter.operationId());
        putIfSet(query, "status", filter.status());
        putIfSet(query, "since", filter.since());
        putIfSet(query, "traceId", filter.traceId());
        putPage(query, page);
        return call("GET", "requests", query, null, JournalPage.class);
    }

    /** How many requests match every filter set: the journal's cheapest check, no entry is sent. */
    @ControlOperation("listRequests")
    public int countRequests(RequestFilter filter) {
        return listRequests(filter, PageRequest.first().withLimit(0)).count();
    }

    /**
     * Every request that matches every filter set, oldest first, fetched a page at a time as the stream is read (a
     * failed call throws from the stream's terminal operation).
     */
    @ControlOperation("listRequests")
    public Stream<JournalEntry> streamRequests(RequestFilter filter) {
        return Stream
            .iterate(listRequests(filter), page -> page != null, page -> page.hasNext() ? listRequests(filter, PageRequest.first().withAfter(page.next())) : null)
            .flatMap(page -> page.entries().stream());
    }

    /** Empties the namespace's journal. */
    @ControlOperation("clearRequests")
    public Cleared clearRequests() {
        return call("DELETE", "requests", NO_QUERY, null, Cleared.class);
    }

    /** The first page of the requests no operation matched (100, oldest first), and the count of all. */
    @ControlOperation("listUnmatchedRequests")
    public JournalPage listUnmatchedRequests() {
        return listUnmatchedRequests(PageRequest.first());
    }

    /** A page of the requests no operation matched, as {@link #listRequests(RequestFilter, PageRequest)}. */
    @ControlOperation("listUnmatchedRequests")
    public JournalPage listUnmatchedRequests(PageRequest page) {
        Map<String, String> query = new LinkedHashMap<>();
        putPage(query, page);
        return call("GET", "requests/unmatched", query, null, JournalPage.class);
    }

    /** Arms a fault on the namespace's calls of one operation. */
    @ControlOperation("addFault")
    public Fault addFault(NewFault fault) {
        return call("POST", "faults", NO_QUERY, fault, Fault.class);
    }

    /** The namespace's faults, oldest first, with how often each has fired. */
    @ControlOperation("listFaults")
    public FaultList listFaults() {
        return call("GET", "faults", NO_QUERY, null, FaultList.class);
    }

    /** Removes every fault of the namespace. */
    @ControlOperation("clearFaults")
    public Cleared clearFaults() {
        return call("DELETE", "faults", NO_QUERY, null, Cleared.class);
    }

    /** The namespace's now. */
    @ControlOperation("getClock")
    public Clock getClock() {
        return call("GET", "clock", NO_QUERY, null, Clock.class);
    }

    /** Moves the namespace's clock to {@code now}; from there it runs at the real pace. */
    @ControlOperation("setClock")
    public Clock setClock(Instant now) {
        return call("POST", "clock", NO_QUERY, Map.of("now", now), Clock.class);
    }

    /** Returns the namespace's clock to real time. */
    @ControlOperation("resetClock")
    public Clock resetClock() {
        return call("DELETE", "clock", NO_QUERY, null, Clock.class);
    }

    /** What the namespace's journaled requests covered of the API's contract. */
    @ControlOperation("getCoverage")
    public CoverageReport getCoverage() {
        return call("GET", "coverage", NO_QUERY, null, CoverageReport.class);
    }

    /** The same report as Markdown, an operations × responses table for people (e.g. a CI summary). */
    @ControlOperation("getCoverage")
    public String getCoverageMarkdown() {
        return http.text("coverage", namespace, MARKDOWN_QUERY, MARKDOWN);
    }

    /**
     * The report of {@link #getCoverage()} counting only the calls of one trace (the trace id of their W3C
     * {@code traceparent}, 32 lowercase hex digits) the journal keeps.
     */
    @ControlOperation("getCoverage")
    public CoverageReport getCoverageOfTrace(String traceId) {
        return call("GET", "coverage", Map.of("traceId", traceId), null, CoverageReport.class);
    }

    /** The report of {@link #getCoverageOfTrace(String)} as Markdown. */
    @ControlOperation("getCoverage")
    public String getCoverageMarkdownOfTrace(String traceId) {
        return http.text("coverage", namespace, Map.of("format", "markdown", "traceId", traceId), MARKDOWN);
    }

    /**
     * How the sandbox's answers differed from the real API's ({@code UPSTREAM}, in {@code UPSTREAM_MODE=compare}):
     * each difference and the counts per operation; mode {@code off} and nothing in it without an upstream.
     */
    @ControlOperation("getDrift")
    public DriftReport getDrift() {
        return call("GET", "drift", NO_QUERY, null, DriftReport.class);
    }

    /** Checks the namespace's journal against the expectations; other calls are allowed. */
    @ControlOperation("verify")
    public VerifyResult verify(Expectation... expectations) {
        return verify(false, expectations);
    }

    /** As {@link #verify(Expectation...)}, and every call no expectation matched fails the verification. */
    @ControlOperation("verify")
    public VerifyResult verifyStrictly(Expectation... expectations) {
        return verify(true, expectations);
    }

    /**
     * As {@link #verify(Expectation...)}, counting only the calls of one trace (the trace id of their W3C
     * {@code traceparent}): what one request of the test caused, whatever else the namespace received.
     */
    @ControlOperation("verify")
    public VerifyResult verifyTrace(String traceId, Expectation... expectations) {
        return verify(Map.of("traceId", traceId), false, expectations);
    }

    /** As {@link #verifyTrace(String, Expectation...)}, and every call of the trace no expectation matched fails it. */
    @ControlOperation("verify")
    public VerifyResult verifyTraceStrictly(String traceId, Expectation... expectations) {
        return verify(Map.of("traceId", traceId), true, expectations);
    }

    /**
     * The calls the namespace received as a Pact (specification V4), as JSON to write to a file for a Pact broker: one
     * interaction per distinct request and response shape, with matchers from the spec and provider states that
     * {@code animal-store-sandbox pact verify} restores. The consumer is named after the namespace, the provider after
     * the API's title.
     */
    @ControlOperation("exportPact")
    public String exportPact() {
        return exportPact(null, null);
    }

    /** As {@link #exportPact()}, naming the consumer and the provider (either may be null for its default). */
    @ControlOperation("exportPact")
    public String exportPact(String consumer, String provider) {
        Map<String, String> query = new LinkedHashMap<>();
        putIfSet(query, "consumer", consumer);
        putIfSet(query, "provider", provider);
        return http.text("pact", namespace, query, "application/json");
    }

    /**
     * Fails unless every documented response of the operations named (of every operation when none is named) was
     * exercised in this namespace.
     *
     * @throws AssertionError listing the responses never exercised
     */
    public void assertAllResponsesExercised(String... operationIds) {
        getCoverage().assertAllResponsesExercised(operationIds);
    }

    /** @throws AssertionError listing each deprecated operation called, with its sunset and replacement */
    public void assertNoDeprecatedCalls() {
        getCoverage().assertNoDeprecatedCalls();
    }

    /** @throws AssertionError naming each failed expectation with its closest calls and their differences */
    public void assertVerified(Expectation... expectations) {
        verify(expectations).assertPassed();
    }

    /** As {@link #assertVerified(Expectation...)}, and naming every call no expectation matched. */
    public void assertVerifiedStrictly(Expectation... expectations) {
        verifyStrictly(expectations).assertPassed();
    }

    @Override
    public String toString() {
        return "NamespaceControl[" + name() + " at " + http.sandboxUrl() + "]";
    }

    /** The body of createSnapshot. */
    private record NewSnapshot(String name, String namespace) {}

    private VerifyResult verify(boolean strict, Expectation... expectations) {
        return verify(NO_QUERY, strict, expectations);
    }

    private VerifyResult verify(Map<String, String> query, boolean strict, Expectation... expectations) {
        Map<String, Object> request = Map.of("expectations", List.of(expectations), "strict", strict);
        return call("POST", "verify", query, request, VerifyResult.class);
    }

    private <T> T call(String method, String path, Map<String, String> query, Object body, Class<T> answer) {
        return call(method, path, query, body, ControlHttp.JSON.constructType(answer));
    }

    private <T> T call(String method, String path, Map<String, String> query, Object body, JavaType answer) {
        return http.call(method, path, namespace, query, body, answer);
    }

    private static void putPage(Map<String, String> query, PageRequest page) {
        putIfSet(query, "limit", page.limit());
        putIfSet(query, "after", page.after());
    }

    private static void putIfSet(Map<String, String> query, String name, Object value) {
        if (value != null) {
            query.put(name, value.toString());
        }
    }
}
