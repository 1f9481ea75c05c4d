package dev.animalstore.testcontainers;

import com.github.dockerjava.api.exception.NotFoundException;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame.OutputType;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * Testcontainers implementation for the Animal Store sandbox ({@code animal-store-sandbox}, port 4010). The settings go
 * to the sandbox as its environment, and one it refuses fails {@link #start()} at its exit with the sandbox's own line.
 */
public class AnimalStoreContainer extends GenericContainer<AnimalStoreContainer> {

    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("animal-store-sandbox");

    /** The image of this module's version: a release publishes both under one version. */
    public static final String DEFAULT_TAG = projectVersion();

    public static final int PORT = 4010;

    public static final String API_BASE_PATH = "/v1";

    /** Where the image has the sandbox write the CA of {@code TLS=auto} ({@code TLS_CA_OUT}), for {@link #withTls()}. */
    public static final String TLS_CA_PATH = "/tmp/animal-store-ca.pem";

    /** What this start wrote to stderr, kept for {@link #doStart()}: the container is gone when a start fails. */
    private final StringBuffer stderr = new StringBuffer();

    /** The CA of this start and a context that trusts it alone; null until a start with TLS is up. */
    private volatile Trust trust;

    /** A container of {@code animal-store-sandbox:}{@link #DEFAULT_TAG}. */
    public AnimalStoreContainer() {
        this(DEFAULT_IMAGE_NAME.withTag(DEFAULT_TAG));
    }

    public AnimalStoreContainer(String dockerImageName) {
        this(DockerImageName.parse(dockerImageName));
    }

    /**
     * @param dockerImageName an {@code animal-store-sandbox} image; one under another name must be declared
     *     {@code asCompatibleSubstituteFor("animal-store-sandbox")}
     */
    public AnimalStoreContainer(DockerImageName dockerImageName) {
        super(dockerImageName);
        dockerImageName.assertCompatibleWith(DEFAULT_IMAGE_NAME);
        addExposedPorts(PORT);
        waitingFor(new HealthyOrExited());
        withLogConsumer(frame -> {
            if (frame.getType() == OutputType.STDERR && stderr.length() < 64 * 1024) {
                stderr.append(frame.getUtf8String());
            }
        });
        withImagePullPolicy(new LocalImageFirst());
        // A key and an admin token of this container's own: the tests read them back from the getters.
        withApiKey("key-" + UUID.randomUUID());
        withAdminToken("admin-" + UUID.randomUUID());
    }

    /** {@code SEED}: the same seed gives the same pets. */
    public AnimalStoreContainer withSeed(long seed) {
        return withEnv("SEED", Long.toString(seed));
    }

    /** {@code SEED_COUNT}: how many pets the seed generates. */
    public AnimalStoreContainer withSeedCount(int count) {
        return withEnv("SEED_COUNT", Integer.toString(count));
    }

    /** {@code API_KEYS}: the key clients send as {@code Authorization: Bearer <key>}. */
    public AnimalStoreContainer withApiKey(String apiKey) {
        return withEnv("API_KEYS", apiKey);
    }

    /** {@code ADMIN_TOKEN}: the control API's token. */
    public AnimalStoreContainer withAdminToken(String adminToken) {
        return withEnv("ADMIN_TOKEN", adminToken);
    }

    /** {@code TLS=auto}: HTTPS and HTTP/2 with a CA of each start, which {@link #getTlsCa()} gives and the module trusts alone. */
    public AnimalStoreContainer withTls() {
        return withEnv("TLS", "auto");
    }

    /** Copies this JSON file of the host to {@code /fixtures/<name>} and sets {@code FIXTURES} to it. */
    public AnimalStoreContainer withFixtures(Path fixtures) {
        String target = "/fixtures/" + fixtures.getFileName();
        withCopyFileToContainer(MountableFile.forHostPath(fixtures, 0644), target);
        return withEnv("FIXTURES", target);
    }

    /** {@code DATA_FILE=:memory:} instead of the container's {@code /data} volume. */
    public AnimalStoreContainer withInMemory() {
        return withEnv("DATA_FILE", ":memory:");
    }

    public String getApiKey() {
        return getEnvMap().get("API_KEYS");
    }

    public String getAdminToken() {
        return getEnvMap().get("ADMIN_TOKEN");
    }

    /** The sandbox's root, where {@code /healthz} and {@code /__admin} are, e.g. {@code http://localhost:32768}. */
    public String getOrigin() {
        return (tlsRequested() ? "https://" : "http://") + getHost() + ":" + getMappedPort(PORT);
    }

    /** The API's base URL, e.g. {@code http://localhost:32768/v1}. */
    public String getBaseUrl() {
        return getOrigin() + API_BASE_PATH;
    }

    /** The PEM of this start's CA ({@link #withTls()}): trust it, and nothing else, in the client under test. */
    public String getTlsCa() {
        return trust().caPem();
    }

    /** An {@link SSLContext} that trusts {@link #getTlsCa()} alone, {@link #withTls()}, for any JSSE-based client. */
    public SSLContext getSslContext() {
        return trust().sslContext();
    }

    /** A control client on the default namespace, made at each call to follow a restart to its new port and CA. */
    public AnimalStoreControlClient getControlClient() {
        Trust current = trust;
        return new AnimalStoreControlClient(URI.create(getOrigin()), getAdminToken(), getApiKey(), current == null ? null : current.sslContext());
    }

    /** The certificate of {@code TLS=auto} names localhost and its addresses; another host this module dials, too. */
    @Override
    protected void configure() {
        String names = getEnvMap().getOrDefault("TLS_NAMES", "");
        if (tlsRequested() && !List.of("localhost", "127.0.0.1", "::1").contains(getHost()) && !Arrays.asList(names.split(",")).contains(getHost())) {
            withEnv("TLS_NAMES", names.isEmpty() ? getHost() : names + "," + getHost());
        }
    }

    /**
     * A sandbox that refuses a setting may exit before Testcontainers sees its port published, which it waits for
     * before any wait strategy, and removes the container: the sandbox's own line, kept as written, is the cause.
     */
    @Override
    protected void doStart() {
        stderr.setLength(0);
        try {
            super.doStart();
        } catch (ContainerLaunchException e) {
            String refusal = stderr.toString().strip();
            if (!refusal.startsWith("animal-store-sandbox: ")) {
                throw e;
            }
            throw new ContainerLaunchException("the sandbox exited as it started", new ContainerLaunchException(refusal));
        }
    }

    private boolean tlsRequested() {
        return "auto".equals(getEnvMap().get("TLS"));
    }

    private Trust trust() {
        Trust current = trust;
        if (current == null) {
            throw new IllegalStateException(tlsRequested() ? "the sandbox's CA is read once the container is up: start() it first" : "the sandbox serves plain HTTP: withTls() asks for HTTPS");
        }
        return current;
    }

    private static String projectVersion() {
        try (InputStream in = AnimalStoreContainer.class.getResourceAsStream("animal-store-sandbox.properties")) {
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The CA's PEM, and a context that trusts it alone. */
    private record Trust(String caPem, SSLContext sslContext) {

        /** @throws GeneralSecurityException when {@code caPem} holds no whole certificate (the file is still being written) */
        static Trust of(String caPem) throws GeneralSecurityException, IOException {
            KeyStore trustStore = KeyStore.getInstance(KeyStore.getDefaultType());
            trustStore.load(null, null);
            trustStore.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(caPem.getBytes(StandardCharsets.US_ASCII))));
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trustManagers.init(trustStore);
            SSLContext sslContext = SSLContext.getInstance("TLS");
            sslContext.init(null, trustManagers.getTrustManagers(), null);
            return new Trust(caPem, sslContext);
        }
    }

    /**
     * Waits for {@code /healthz} to answer 200, and stops at the sandbox's exit with its stderr (Testcontainers' HTTP
     * wait would poll an exited container until its timeout). With TLS it first copies the CA out of the container and
     * asks over HTTPS trusting that CA alone, where Testcontainers' trusts the JVM's store or turns verification off.
     */
    private final class HealthyOrExited extends AbstractWaitStrategy {

        @Override
        protected void waitUntilReady() {
            Instant deadline = Instant.now().plus(startupTimeout);
            trust = null;
            HttpRequest healthz = HttpRequest.newBuilder(URI.create(getOrigin() + "/healthz")).timeout(Duration.ofSeconds(1)).build();
            String notYet = "no CA at " + TLS_CA_PATH + " in the container: the image must set TLS_CA_OUT=" + TLS_CA_PATH;
            HttpClient http = null;
            try {
                while (true) {
                    if (!isRunning()) {
                        throw new ContainerLaunchException(getLogs(OutputType.STDERR).strip());
                    }
                    if (http == null && tlsRequested()) {
                        trust = copyTrust();
                    }
                    if (http == null && (!tlsRequested() || trust != null)) {
                        HttpClient.Builder builder = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1);
                        http = (trust == null ? builder : builder.sslContext(trust.sslContext())).build();
                    }
                    if (http != null) {
                        try {
                            int status = http.send(healthz, BodyHandlers.discarding()).statusCode();
                            if (status == 200) {
                                return;
                            }
                            notYet = "GET /healthz answered " + status;
                        } catch (IOException e) {
                            notYet = "GET /healthz failed: " + e;
                        }
                    }
                    if (Instant.now().isAfter(deadline)) {
                        // The last failure says why: e.g. a certificate that does not name the host.
                        throw new ContainerLaunchException("not ready within " + startupTimeout.toSeconds() + " s: " + notYet);
                    }
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ContainerLaunchException("interrupted while waiting for /healthz", e);
            }
        }

        /** The CA once the sandbox has written it whole, else null. */
        private Trust copyTrust() {
            try {
                return Trust.of(copyFileFromContainer(TLS_CA_PATH, in -> new String(in.readAllBytes(), StandardCharsets.US_ASCII)));
            } catch (NotFoundException | GeneralSecurityException | IOException notYet) {
                return null;
            }
        }
    }
}
