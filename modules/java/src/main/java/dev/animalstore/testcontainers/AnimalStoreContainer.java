package dev.animalstore.testcontainers;

import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Properties;
import java.util.UUID;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.output.OutputFrame.OutputType;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * Testcontainers implementation for the Animal Store sandbox: the Animal Store API as a stateful, seeded server,
 * with a control API for tests.
 * <p>
 * Supported image: {@code animal-store-sandbox}
 * <p>
 * Exposed port: 4010
 * <p>
 * The settings go to the sandbox as its environment, and the sandbox judges them: one it refuses makes
 * {@link #start()} fail as soon as the sandbox exits, with the sandbox's own line as the error.
 */
public class AnimalStoreContainer extends GenericContainer<AnimalStoreContainer> {

    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("animal-store-sandbox");

    /** The image of this module's version: a release publishes both under one version. */
    public static final String DEFAULT_TAG = projectVersion();

    public static final int PORT = 4010;

    public static final String API_BASE_PATH = "/v1";

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
        return "http://" + getHost() + ":" + getMappedPort(PORT);
    }

    /** The API's base URL, e.g. {@code http://localhost:32768/v1}. */
    public String getBaseUrl() {
        return getOrigin() + API_BASE_PATH;
    }

    /**
     * A control client of this container: its calls act on the default namespace, {@code namespace(name)}'s on another.
     * Made at each call, so that it follows a restarted container to its new port.
     */
    public AnimalStoreControlClient getControlClient() {
        return new AnimalStoreControlClient(URI.create(getOrigin()), getAdminToken(), getApiKey());
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

    /**
     * Waits for {@code /healthz}, and stops as soon as the sandbox exits (Testcontainers' HTTP wait would poll an
     * exited container until its timeout), with the sandbox's stderr, the setting it refused, as the error.
     */
    private static final class HealthyOrExited extends AbstractWaitStrategy {

        @Override
        protected void waitUntilReady() {
            Instant deadline = Instant.now().plus(startupTimeout);
            while (true) {
                if (!waitStrategyTarget.isRunning()) {
                    throw new ContainerLaunchException(waitStrategyTarget.getLogs(OutputType.STDERR).strip());
                }
                try {
                    Wait.forHttp("/healthz").forPort(PORT).withStartupTimeout(Duration.ofSeconds(1)).waitUntilReady(waitStrategyTarget);
                    return;
                } catch (ContainerLaunchException notYet) {
                    if (Instant.now().isAfter(deadline)) {
                        throw notYet;
                    }
                }
            }
        }
    }
}
