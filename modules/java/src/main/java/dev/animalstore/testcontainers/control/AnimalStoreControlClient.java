package dev.animalstore.testcontainers.control;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * A client of the Animal Store sandbox's control API ({@code /__admin}), for any running sandbox: a container, a
 * {@code docker run}, a shared test environment. Its own calls act on the default namespace; {@link #namespace(String)}
 * gives the same calls on another one.
 *
 * <pre>{@code
 * AnimalStoreControlClient control = new AnimalStoreControlClient(URI.create("http://localhost:4010"), adminToken, apiKey);
 * control.namespace("team-a").addFault(Map.of("operationId", "listPets", "status", 503, "times", 1));
 * }</pre>
 */
public final class AnimalStoreControlClient extends NamespaceControl {

    /**
     * @param sandboxUrl the sandbox's root, where {@code /healthz} and {@code /__admin} are, e.g. {@code http://localhost:4010}
     * @param adminToken the sandbox's {@code ADMIN_TOKEN}
     * @param apiKey one of its {@code API_KEYS}, for {@link #apiHeaders()}
     */
    public AnimalStoreControlClient(URI sandboxUrl, String adminToken, String apiKey) {
        this(sandboxUrl, adminToken, apiKey, null);
    }

    /**
     * A client of a sandbox that serves HTTPS with a certificate the JVM does not trust, e.g. one of {@code TLS=auto}.
     *
     * @param sandboxUrl the sandbox's root, e.g. {@code https://localhost:4010}
     * @param sslContext trusts the sandbox's certificate, e.g. {@code AnimalStoreContainer.getSslContext()}; null for
     *     the JVM's default trust
     */
    public AnimalStoreControlClient(URI sandboxUrl, String adminToken, String apiKey, SSLContext sslContext) {
        super(sandboxUrl, adminToken, apiKey, httpClient(sslContext), null);
    }

    /** The same calls and API headers on the namespace {@code name}, which springs into being on its first use. */
    public NamespaceControl namespace(String name) {
        return new NamespaceControl(sandboxUrl, adminToken, apiKey, http, name);
    }

    /** Deletes a namespace with its pets, journal, faults and clock; its calls stay counted in {@code getCoverage(Map.of("all", true))}. */
    public JsonNode deleteNamespace(String name) {
        return call("DELETE", "namespaces/" + URLEncoder.encode(name, StandardCharsets.UTF_8), Map.of(), null);
    }

    /** The namespaces in memory, least recently used first. */
    public JsonNode listNamespaces() {
        return call("GET", "namespaces", Map.of(), null);
    }

    /** The snapshots, oldest first, each with the namespaces that start from it ({@code forks}). */
    public JsonNode listSnapshots() {
        return call("GET", "snapshots", Map.of(), null);
    }

    /** Deletes a snapshot; the sandbox refuses (409) while a namespace starts from it. */
    public JsonNode deleteSnapshot(String name) {
        return call("DELETE", "snapshots/" + URLEncoder.encode(name, StandardCharsets.UTF_8), Map.of(), null);
    }

    /** The PEM of the CA that {@code TLS=auto} made at this start; the sandbox answers 404 when it made none. */
    public String getTlsCa() {
        return send("GET", "tls/ca", Map.of(), null, "application/x-pem-file");
    }
}
