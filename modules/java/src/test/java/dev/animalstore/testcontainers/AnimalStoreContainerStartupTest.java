package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.containers.ContainerFetchException;
import org.testcontainers.containers.ContainerLaunchException;

/** Containers of their own: each test starts the sandbox with other initial data, or with settings it refuses. */
@DockerTest
class AnimalStoreContainerStartupTest {

    /**
     * A refused setting makes the sandbox exit within a second of its start; the bound is loose for a loaded machine,
     * and far below the 60 s the startup timeout would take.
     */
    private static final Duration FAIL_FAST_BOUND = Duration.ofSeconds(20);

    /** A missing image is reported once one pull is refused: far below the minutes of a retried pull. */
    private static final Duration MISSING_IMAGE_BOUND = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path tempDir;

    @Test
    void loadsTheFixturesFileCopiedFromTheHost() throws Exception {
        Path fixtures = Files.writeString(
            tempDir.resolve("my-pets.json"),
            "[{\"id\":1,\"name\":\"Fixture Fox\",\"categoryId\":1,\"status\":\"available\"},"
                + "{\"id\":2,\"name\":\"Fixture Finch\",\"categoryId\":2,\"status\":\"sold\"}]"
        );
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer().withFixtures(fixtures)) {
            sandbox.start();
            // getApiKey() without withApiKey(): the container's own random key.
            JsonNode pets = JSON.readTree(apiWithItsKey(sandbox).get("/pets").body());
            assertThat(pets.findValuesAsText("name")).containsExactly("Fixture Fox", "Fixture Finch");
        }
    }

    @Test
    void refusedSettingFailsTheStartAtOnceWithTheSandboxMessage() {
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer().withSeedCount(1_000_001)) {
            assertStartFailsFast(sandbox, "SEED_COUNT must be a whole number from 0 to 1000000, got \"1000001\"");
        }
    }

    @Test
    void aMissingImageFailsTheStartAtOnceNamingItAndHowToGetIt() {
        // A tag no engine has and no registry serves: the start must not sit in Testcontainers' pull retries.
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer("animal-store-sandbox:9.9.9-mistyped")) {
            long started = System.nanoTime();
            assertThatThrownBy(sandbox::start)
                .isInstanceOf(ContainerFetchException.class)
                .hasStackTraceContaining("the image animal-store-sandbox:9.9.9-mistyped is not on this Docker engine")
                .hasStackTraceContaining("npm run image");
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(MISSING_IMAGE_BOUND);
        }
    }

    /** The error is the sandbox's own line. */
    private static void assertStartFailsFast(AnimalStoreContainer sandbox, String message) {
        long started = System.nanoTime();
        assertThatThrownBy(sandbox::start).isInstanceOf(ContainerLaunchException.class).rootCause().hasMessageStartingWith("animal-store-sandbox: " + message);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(FAIL_FAST_BOUND);
    }

    private static ApiClient apiWithItsKey(AnimalStoreContainer sandbox) {
        return new ApiClient(sandbox.getBaseUrl(), Map.of("Authorization", "Bearer " + sandbox.getApiKey()));
    }
}
