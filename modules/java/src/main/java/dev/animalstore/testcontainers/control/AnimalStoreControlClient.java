package dev.animalstore.testcontainers.control;

import java.net.URI;
import javax.net.ssl.SSLContext;

/**
 * A client of any running sandbox's control API ({@code /__admin}), on the default namespace; {@link #namespace(String)}
 * gives a handle on another.
 *
 * <pre>{@code
 * AnimalStoreControlClient control = new AnimalStoreControlClient(URI.create("http://localhost:4010"), adminToken, apiKey);
 * control.namespace("team-a").api(FaultsApi.class).addFault(APIAddFaultRequest.newBuilder().newFault(new NewFault().operationId("listPets").status(503)).build());
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

    /** @param sslContext trusts the sandbox's certificate, e.g. {@code AnimalStoreContainer.getSslContext()}; null for the JVM's */
    public AnimalStoreControlClient(URI sandboxUrl, String adminToken, String apiKey, SSLContext sslContext) {
        super(sandboxUrl, adminToken, apiKey, httpClient(sslContext), null);
    }

    /** A handle on the namespace {@code name}, which springs into being on its first reset. */
    public NamespaceControl namespace(String name) {
        return new NamespaceControl(sandboxUrl, adminToken, apiKey, http, name);
    }
}
