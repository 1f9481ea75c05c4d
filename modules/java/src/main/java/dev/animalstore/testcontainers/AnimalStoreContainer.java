package dev.animalstore.testcontainers;

import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.regex.Pattern;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.GenericContainer;
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
 * Every setting is checked when it is set, and {@link #start()} waits until {@code /healthz} answers 200. A sandbox
 * that refuses its settings exits at once: {@code start()} then fails within a second or so, and the exception's
 * message carries what the sandbox said.
 */
public class AnimalStoreContainer extends GenericContainer<AnimalStoreContainer> {

    public static final DockerImageName DEFAULT_IMAGE_NAME = DockerImageName.parse("animal-store-sandbox");

    /** The image of this module's version. */
    public static final String DEFAULT_TAG = "0.1.0";

    /** The port the sandbox listens on inside the container. */
    public static final int PORT = 4010;

    /** Where the API lives on the sandbox. */
    public static final String API_BASE_PATH = "/v1";

    private static final String HEALTH_PATH = "/healthz";

    /** Keys and the admin token are bearer tokens (RFC 6750's token68); the sandbox refuses anything else. */
    private static final Pattern BEARER_TOKEN = Pattern.compile("[A-Za-z0-9\\-._~+/]+=*");

    private static final long MAX_SEED = 4_294_967_295L;

    private static final int MAX_SEED_COUNT = 1_000_000;

    /** Where {@link #withFixtures(Path)} puts the file inside the container. */
    private static final String FIXTURES_DIR = "/fixtures/";

    private static final String IN_MEMORY = ":memory:";

    /** How long a failed start waits for the last of the sandbox's output to arrive. */
    private static final Duration OUTPUT_GRACE = Duration.ofSeconds(2);

    // The sandbox's settings. The container's environment holds them, and the getters read them back from there.
    private static final String API_KEYS = "API_KEYS";

    private static final String ADMIN_TOKEN = "ADMIN_TOKEN";

    private static final String SEED = "SEED";

    private static final String SEED_COUNT = "SEED_COUNT";

    private static final String FIXTURES = "FIXTURES";

    private static final String DATA_FILE = "DATA_FILE";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final StartupErrorOutput startupOutput = new StartupErrorOutput();

    private AnimalStoreControlClient controlClient;

    /** A container of {@code animal-store-sandbox:}{@value #DEFAULT_TAG}. */
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
        waitingFor(new HealthCheckWaitStrategy(HEALTH_PATH, PORT));
        withLogConsumer(startupOutput);
        // The container listens on every interface, where the sandbox turns its control API off rather than open it
        // with the published default token: each container brings a random token of its own.
        withEnv(ADMIN_TOKEN, randomToken());
        withImagePullPolicy(new LocalImageFirst());
    }

    private static String randomToken() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Generates the initial pets from this seed ({@code SEED}, 0 to 4294967295): the same seed gives the same pets. */
    public AnimalStoreContainer withSeed(long seed) {
        requireRange("seed", seed, MAX_SEED);
        requireNoFixtures("withSeed()");
        return withEnv(SEED, Long.toString(seed));
    }

    /** How many pets the seed generates ({@code SEED_COUNT}, 0 to 1000000; default 60). */
    public AnimalStoreContainer withSeedCount(int count) {
        requireRange("seed count", count, MAX_SEED_COUNT);
        requireNoFixtures("withSeedCount()");
        return withEnv(SEED_COUNT, Integer.toString(count));
    }

    /**
     * The API key clients must send as {@code Authorization: Bearer <key>} ({@code API_KEYS}); without it the
     * sandbox accepts {@value AnimalStoreControlClient#DEFAULT_API_KEY}.
     */
    public AnimalStoreContainer withApiKey(String apiKey) {
        requireBearerToken("an API key", apiKey);
        if (apiKey.equals(getAdminToken())) {
            throw new IllegalArgumentException("the API key must differ from the admin token");
        }
        return withEnv(API_KEYS, apiKey);
    }

    /**
     * The control API's token ({@code ADMIN_TOKEN}) instead of the random one this container generated. It must
     * differ from the API key.
     */
    public AnimalStoreContainer withAdminToken(String adminToken) {
        requireBearerToken("the admin token", adminToken);
        if (adminToken.equals(getApiKey())) {
            throw new IllegalArgumentException("the admin token must differ from the API key");
        }
        return withEnv(ADMIN_TOKEN, adminToken);
    }

    /**
     * Loads the initial pets from this JSON file of the host ({@code FIXTURES}): it is copied into the container.
     * The sandbox validates it when it starts, and refuses to start on a bad one.
     */
    public AnimalStoreContainer withFixtures(Path fixtures) {
        if (!Files.isRegularFile(fixtures)) {
            throw new IllegalArgumentException("no fixtures file at " + fixtures.toAbsolutePath());
        }
        if (isSet(SEED) || isSet(SEED_COUNT)) {
            throw new IllegalArgumentException(
                "withFixtures() and withSeed()/withSeedCount() both choose the initial data: use one of them"
            );
        }
        String target = FIXTURES_DIR + fixtures.getFileName();
        withCopyFileToContainer(MountableFile.forHostPath(fixtures, 0644), target);
        return withEnv(FIXTURES, target);
    }

    /** Keeps the data in memory only ({@code DATA_FILE=:memory:}) instead of the container's {@code /data} volume. */
    public AnimalStoreContainer withInMemory() {
        return withEnv(DATA_FILE, IN_MEMORY);
    }

    /** The key to send as {@code Authorization: Bearer <key>}: the configured one, or the sandbox's default. */
    public String getApiKey() {
        String keys = getEnvMap().get(API_KEYS);
        if (keys == null) {
            return AnimalStoreControlClient.DEFAULT_API_KEY;
        }
        // The sandbox accepts a comma-separated list, set through withEnv(): its first key serves.
        return Arrays
            .stream(keys.split(","))
            .map(String::trim)
            .filter(key -> !key.isEmpty())
            .findFirst()
            .orElse(AnimalStoreControlClient.DEFAULT_API_KEY);
    }

    /** The control API's token: the configured one, or the random one this container generated. */
    public String getAdminToken() {
        String token = getEnvMap().get(ADMIN_TOKEN);
        return token == null || token.isEmpty() ? AnimalStoreControlClient.DEFAULT_ADMIN_TOKEN : token;
    }

    /** The sandbox's root on the host, where {@code /healthz} and {@code /__admin} are, e.g. {@code http://localhost:32768}. */
    public String getOrigin() {
        return "http://" + getHost() + ":" + getMappedPort(PORT);
    }

    /** The API's base URL, e.g. {@code http://localhost:32768/v1}, ready for {@code getBaseUrl() + "/pets"}. */
    public String getBaseUrl() {
        return getOrigin() + API_BASE_PATH;
    }

    /**
     * The control API client of this running sandbox, with its admin token and API key; its own calls act on the
     * default namespace, and {@code getControlClient().namespace(name)} on another one.
     */
    public synchronized AnimalStoreControlClient getControlClient() {
        URI origin = URI.create(getOrigin());
        // A restarted container listens on another port: the client follows it.
        if (controlClient == null || !controlClient.sandboxUrl().equals(origin)) {
            controlClient = new AnimalStoreControlClient(origin, getAdminToken(), getApiKey());
        }
        return controlClient;
    }

    @Override
    protected void doStart() {
        requireImage();
        startupOutput.startRecording();
        try {
            super.doStart();
        } catch (ContainerLaunchException e) {
            throw withSandboxMessage(e);
        } finally {
            startupOutput.stopRecording();
        }
    }

    /**
     * Resolves the image before the start, so that a missing one fails with {@link LocalImageFirst}'s message on top
     * rather than under Testcontainers' generic wrappers.
     */
    private void requireImage() {
        try {
            getDockerImageName();
        } catch (RuntimeException e) {
            for (Throwable cause = e; cause != null; cause = cause.getCause()) {
                if (cause instanceof LocalImageFirst.MissingImageException missing) {
                    throw new ContainerLaunchException(missing.getMessage(), missing);
                }
            }
            throw e;
        }
    }

    /** The launch failure, with what the sandbox said on stderr (e.g. which setting it refused) in its message. */
    private ContainerLaunchException withSandboxMessage(ContainerLaunchException failure) {
        String said;
        try {
            said = startupOutput.awaitStderr(OUTPUT_GRACE);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return failure;
        }
        if (said.isEmpty()) {
            return failure;
        }
        return new ContainerLaunchException("The Animal Store sandbox did not start: " + said, failure);
    }

    private boolean isSet(String variable) {
        return getEnvMap().containsKey(variable);
    }

    private void requireNoFixtures(String method) {
        if (isSet(FIXTURES)) {
            throw new IllegalArgumentException(
                "withFixtures() and " + method + " both choose the initial data: use one of them"
            );
        }
    }

    private static void requireRange(String what, long value, long max) {
        if (value < 0 || value > max) {
            throw new IllegalArgumentException("the " + what + " must be from 0 to " + max + ", got " + value);
        }
    }

    /** The value is a secret: the message says what is wrong, never what it holds. */
    private static void requireBearerToken(String what, String token) {
        if (token == null || !BEARER_TOKEN.matcher(token).matches()) {
            throw new IllegalArgumentException(
                what + " must be a bearer token: letters, digits and -._~+/ (then any '='), with no space or comma"
            );
        }
    }
}
