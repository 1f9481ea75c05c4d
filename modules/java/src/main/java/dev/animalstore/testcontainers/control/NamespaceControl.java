package dev.animalstore.testcontainers.control;

import dev.animalstore.testcontainers.control.api.JournalApi;
import dev.animalstore.testcontainers.control.api.JournalApi.APIListRequestsRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIAwaitRequestsRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIGetCoverageRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIListStrayRequestsRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIVerifyRequest;
import dev.animalstore.testcontainers.control.invoker.ApiClient;
import dev.animalstore.testcontainers.control.invoker.ApiException;
import dev.animalstore.testcontainers.control.model.AwaitRequest;
import dev.animalstore.testcontainers.control.model.AwaitResult;
import dev.animalstore.testcontainers.control.model.Expectation;
import dev.animalstore.testcontainers.control.model.StrayReport;
import dev.animalstore.testcontainers.control.model.VerifyRequest;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * A handle on one namespace of the control API, whose client is generated from {@code spec/admin.openapi.yaml} at each
 * build: {@link #api(Class)} gives one of its APIs, each call taking one request object, its calls acting on this
 * namespace unless the request names another; a refusal throws the generated {@link ApiException}. {@link #apiHeaders()}
 * sends the test's own API calls there.
 *
 * <pre>{@code
 * namespace.api(FaultsApi.class).addFault(APIAddFaultRequest.newBuilder().newFault(new NewFault().operationId("listPets").status(503)).build());
 * }</pre>
 */
public class NamespaceControl {

    public static final String NAMESPACE_HEADER = "X-Sandbox-Namespace";

    /** Snapshots, the list of namespaces and the CA are the sandbox's, not a namespace's. */
    private static final Pattern SANDBOX_WIDE = Pattern.compile("^/__admin/(snapshots|namespaces|tls)(/|$)");

    final URI sandboxUrl;

    final String adminToken;

    final String apiKey;

    final HttpClient.Builder http;

    /** Null for the default namespace: the calls then name none, as a test without namespaces would. */
    private final String namespace;

    private final ApiClient apiClient;

    /** Each generated API builds its HTTP client once: one of each per handle. */
    private final Map<Class<?>, Object> apis = new ConcurrentHashMap<>();

    NamespaceControl(URI sandboxUrl, String adminToken, String apiKey, HttpClient.Builder http, String namespace) {
        this.sandboxUrl = sandboxUrl;
        this.adminToken = adminToken;
        this.apiKey = apiKey;
        this.http = http;
        this.namespace = namespace;
        this.apiClient = new ApiClient(http, ApiClient.createDefaultObjectMapper(), URI.create(sandboxUrl.toString().replaceAll("/*$", "")) + "/__admin");
        this.apiClient.setRequestInterceptor(request -> {
            request.header("Authorization", "Bearer " + adminToken);
            if (namespace != null) {
                request.uri(inNamespace(request.copy().build().uri(), namespace));
            }
        });
    }

    /** The JVM's HTTP client over HTTP/1.1, trusting what {@code sslContext} trusts (the JVM's trust when null). */
    static HttpClient.Builder httpClient(SSLContext sslContext) {
        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
        return sslContext == null ? builder : builder.sslContext(sslContext);
    }

    /** The namespace's name, as the sandbox calls it. */
    public String name() {
        return namespace == null ? "default" : namespace;
    }

    /** {@code Authorization} with the API key and, but for the default namespace, {@value #NAMESPACE_HEADER}. */
    public Map<String, String> apiHeaders() {
        return namespace == null ? Map.of("Authorization", "Bearer " + apiKey) : Map.of("Authorization", "Bearer " + apiKey, NAMESPACE_HEADER, namespace);
    }

    /** A generated API, e.g. {@code api(FaultsApi.class).listFaults(APIListFaultsRequest.newBuilder().build())}, acting on this namespace. */
    public <T> T api(Class<T> api) {
        return api.cast(apis.computeIfAbsent(api, type -> {
            try {
                return type.getConstructor(ApiClient.class).newInstance(apiClient);
            } catch (ReflectiveOperationException e) {
                throw new IllegalArgumentException(type + " is not an API of dev.animalstore.testcontainers.control.api", e);
            }
        }));
    }

    /** How many requests match the filters: the journal's cheapest check, no entry is sent. */
    public int countRequests(String operationId, String traceId) throws ApiException {
        return api(JournalApi.class).listRequests(APIListRequestsRequest.newBuilder().operationId(operationId).traceId(traceId).limit(0).build()).getCount();
    }

    /** @throws AssertionError listing, for each operation named (every one when none is), the responses never exercised */
    public void assertAllResponsesExercised(String... operationIds) throws ApiException {
        SandboxAssertions.assertAllResponsesExercised(api(VerificationApi.class).getCoverage(APIGetCoverageRequest.newBuilder().build()), operationIds);
    }

    /** @throws AssertionError listing each deprecated operation called, with its sunset and replacement */
    public void assertNoDeprecatedCalls() throws ApiException {
        SandboxAssertions.assertNoDeprecatedCalls(api(VerificationApi.class).getCoverage(APIGetCoverageRequest.newBuilder().build()));
    }

    /** @throws AssertionError with the sandbox's account of each failed expectation and its closest calls */
    public void assertVerified(Expectation... expectations) throws ApiException {
        verify(false, expectations);
    }

    /** As {@link #assertVerified(Expectation...)}, and any call no expectation matched fails it. */
    public void assertVerifiedStrictly(Expectation... expectations) throws ApiException {
        verify(true, expectations);
    }

    private void verify(boolean strict, Expectation... expectations) throws ApiException {
        VerifyRequest expected = new VerifyRequest().expectations(List.of(expectations)).strict(strict);
        SandboxAssertions.assertPassed(api(VerificationApi.class).verify(APIVerifyRequest.newBuilder().verifyRequest(expected).build()));
    }

    /**
     * Waits on the sandbox until the journal holds the calls {@code wait} expects, {@code quietMs} of quiet, or
     * {@code timeoutMs} (10 s by default, at most 30 s), and answers verify's result, passed or not.
     */
    public AwaitResult awaitRequests(AwaitRequest wait) throws ApiException {
        return api(VerificationApi.class).awaitRequests(APIAwaitRequestsRequest.newBuilder().awaitRequest(wait).build());
    }

    /** @throws AssertionError with the sandbox's account, unless the calls expected came within {@code timeout} */
    public AwaitResult assertAwaited(Duration timeout, Expectation... expectations) throws ApiException {
        AwaitResult result = awaitRequests(new AwaitRequest().timeoutMs(Math.toIntExact(timeout.toMillis())).expectations(List.of(expectations)));
        SandboxAssertions.assertAwaited(result);
        return result;
    }

    /** The calls no running test made that this namespace's test caused (every test's on the default namespace). */
    public StrayReport strayCalls() throws ApiException {
        return api(VerificationApi.class).listStrayRequests(APIListStrayRequestsRequest.newBuilder().test(namespace).build());
    }

    /** @throws AssertionError naming each stray call of this namespace's test: a late job's call after its end, say */
    public void assertNoStrayCalls() throws ApiException {
        SandboxAssertions.assertNoStrayCalls(strayCalls());
    }

    /** The call's URI with {@code namespace} added, unless it names one, is of the whole sandbox, or asks for every namespace. */
    private static URI inNamespace(URI uri, String namespace) {
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        if (SANDBOX_WIDE.matcher(uri.getRawPath()).find() || Pattern.compile("(^|&)(namespace|all=true)").matcher(query).find()) {
            return uri;
        }
        String scoped = (query.isEmpty() ? "" : query + "&") + "namespace=" + URLEncoder.encode(namespace, StandardCharsets.UTF_8);
        return URI.create(uri.toString().split("\\?", 2)[0] + "?" + scoped);
    }
}
