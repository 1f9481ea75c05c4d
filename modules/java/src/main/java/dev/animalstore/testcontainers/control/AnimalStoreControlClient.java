package dev.animalstore.testcontainers.control;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A typed client of the Animal Store sandbox's control API ({@code /__admin}), for any running sandbox: a
 * container, a {@code docker run}, a shared test environment. Its own calls act on the default namespace;
 * {@link #namespace(String)} gives the same calls on another one.
 *
 * <pre>{@code
 * AnimalStoreControlClient control = new AnimalStoreControlClient(URI.create("http://localhost:4010"));
 * NamespaceControl team = control.namespace("team-a");
 * team.addFault(NewFault.on("listPets").withStatus(503).withTimes(1));
 * }</pre>
 */
public final class AnimalStoreControlClient extends NamespaceControl {

    /** The API key a sandbox accepts when none is configured. */
    public static final String DEFAULT_API_KEY = "sandbox-api-key";

    /** The control API's token when none is configured. */
    public static final String DEFAULT_ADMIN_TOKEN = "sandbox-admin-token";

    private static final Map<String, String> ALL_NAMESPACES = Map.of("all", "true");

    private static final Pattern NAMESPACE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");

    /** A client of a sandbox that runs with the default API key and admin token. */
    public AnimalStoreControlClient(URI sandboxUrl) {
        this(sandboxUrl, DEFAULT_ADMIN_TOKEN, DEFAULT_API_KEY);
    }

    /**
     * @param sandboxUrl the sandbox's root, where {@code /healthz} and {@code /__admin} are, e.g. {@code http://localhost:4010}
     * @param adminToken the sandbox's {@code ADMIN_TOKEN}
     * @param apiKey an API key of the sandbox, for {@link #apiHeaders()}
     */
    public AnimalStoreControlClient(URI sandboxUrl, String adminToken, String apiKey) {
        this(sandboxUrl, adminToken, apiKey, HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build());
    }

    /** As {@link #AnimalStoreControlClient(URI, String, String)}, over the given HTTP client. */
    public AnimalStoreControlClient(URI sandboxUrl, String adminToken, String apiKey, HttpClient httpClient) {
        super(new ControlHttp(sandboxUrl, adminToken, apiKey, httpClient), null);
    }

    /** The sandbox's root URL. */
    public URI sandboxUrl() {
        return http.sandboxUrl();
    }

    /**
     * The control calls and API headers of one namespace. A namespace springs into being, with the initial pets,
     * on its first use.
     *
     * @param name 1 to 64 letters, digits, {@code _}, {@code .} or {@code -}, starting with a letter or digit
     */
    public NamespaceControl namespace(String name) {
        if (name == null || !NAMESPACE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                "a namespace name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit, got " + name
            );
        }
        return new NamespaceControl(http, name);
    }

    /**
     * Deletes a namespace with its pets (its data file too), journal, faults and clock. Reading a namespace that does
     * not exist is a 404: only a reset, a replace, a fault, a clock or an API request creates one.
     */
    @ControlOperation("deleteNamespace")
    public Deleted deleteNamespace(String name) {
        String path = "namespaces/" + URLEncoder.encode(name, StandardCharsets.UTF_8);
        return http.call("DELETE", path, null, Map.of(), null, ControlHttp.JSON.constructType(Deleted.class));
    }

    /** The coverage report across every namespace in memory. */
    @ControlOperation("getCoverage")
    public CoverageReport getCoverageOfAllNamespaces() {
        return http.call("GET", "coverage", null, ALL_NAMESPACES, null, ControlHttp.JSON.constructType(CoverageReport.class));
    }

    /** The report across every namespace as Markdown. */
    @ControlOperation("getCoverage")
    public String getCoverageMarkdownOfAllNamespaces() {
        Map<String, String> query = new LinkedHashMap<>(ALL_NAMESPACES);
        query.putAll(MARKDOWN_QUERY);
        return http.text("coverage", null, query, MARKDOWN);
    }

    /** The namespaces in memory, least recently used first. */
    @ControlOperation("listNamespaces")
    public NamespaceList listNamespaces() {
        return http.call("GET", "namespaces", null, Map.of(), null, ControlHttp.JSON.constructType(NamespaceList.class));
    }

    /** The snapshots, oldest first, each with the namespaces that start from it. */
    @ControlOperation("listSnapshots")
    public SnapshotList listSnapshots() {
        return http.call("GET", "snapshots", null, Map.of(), null, ControlHttp.JSON.constructType(SnapshotList.class));
    }

    /**
     * Deletes a snapshot. The sandbox refuses (409) while a namespace starts from it, naming those namespaces: reset
     * them to other data or delete them first.
     */
    @ControlOperation("deleteSnapshot")
    public SnapshotDeleted deleteSnapshot(String name) {
        String path = "snapshots/" + URLEncoder.encode(name, StandardCharsets.UTF_8);
        return http.call("DELETE", path, null, Map.of(), null, ControlHttp.JSON.constructType(SnapshotDeleted.class));
    }
}
