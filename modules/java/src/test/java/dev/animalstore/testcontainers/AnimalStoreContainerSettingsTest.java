package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testcontainers.utility.DockerImageName;

/** Settings are checked when they are set, before any container exists: no Docker needed. */
class AnimalStoreContainerSettingsTest {

    @TempDir
    Path tempDir;

    @Test
    void defaultImageIsTheOneOfTheProjectVersion() throws IOException {
        JsonNode packageJson = new ObjectMapper().readTree(Path.of("../../package.json").toFile());
        assertThat(AnimalStoreContainer.DEFAULT_TAG).isEqualTo(packageJson.get("version").asText());
    }

    @Test
    void defaultsAreTheSandboxDefaults() {
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            assertThat(sandbox.getApiKey()).isEqualTo("sandbox-api-key");
            assertThat(sandbox.getExposedPorts()).containsExactly(AnimalStoreContainer.PORT);
        }
    }

    @Test
    void eachContainerHasARandomAdminTokenOfItsOwn() {
        try (AnimalStoreContainer first = new AnimalStoreContainer(); AnimalStoreContainer second = new AnimalStoreContainer()) {
            // The published default would open nothing: the sandbox listens on every interface in the container.
            assertThat(first.getAdminToken()).matches("[A-Za-z0-9_-]{32}").isNotEqualTo("sandbox-admin-token");
            assertThat(first.getAdminToken()).isNotEqualTo(second.getAdminToken());
            assertThat(first.getEnvMap()).containsEntry("ADMIN_TOKEN", first.getAdminToken());
        }
    }

    @Test
    void gettersTellWhatWasConfigured() {
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer().withApiKey("team-key").withAdminToken("team-admin")) {
            assertThat(sandbox.getApiKey()).isEqualTo("team-key");
            assertThat(sandbox.getAdminToken()).isEqualTo("team-admin");
        }
        // Keys set past withApiKey(), as the sandbox's comma-separated list: the first one serves.
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer().withEnv("API_KEYS", " first-key , second-key")) {
            assertThat(sandbox.getApiKey()).isEqualTo("first-key");
        }
    }

    @Test
    void settingsBecomeTheSandboxEnvironment() throws IOException {
        Path fixtures = Files.writeString(tempDir.resolve("pets.json"), "[]");
        try (
            AnimalStoreContainer seeded = new AnimalStoreContainer().withSeed(4_294_967_295L).withSeedCount(0).withInMemory();
            AnimalStoreContainer fromFixtures = new AnimalStoreContainer().withFixtures(fixtures)
        ) {
            assertThat(seeded.getEnvMap())
                .containsEntry("SEED", "4294967295")
                .containsEntry("SEED_COUNT", "0")
                .containsEntry("DATA_FILE", ":memory:");
            assertThat(fromFixtures.getEnvMap()).containsEntry("FIXTURES", "/fixtures/pets.json");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = { "", " ", "two words", "a,b", "key,", "ключ", "=leading-padding" })
    void refusesAKeyOrTokenNoBearerHeaderCanCarry(String value) {
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            assertThatThrownBy(() -> sandbox.withApiKey(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an API key must be a bearer token");
            assertThatThrownBy(() -> sandbox.withAdminToken(value))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the admin token must be a bearer token");
        }
    }

    @Test
    void refusesAnAdminTokenThatIsAlsoTheApiKey() {
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            // Against the default key and the generated token too: the sandbox would refuse to start.
            assertThatThrownBy(() -> sandbox.withAdminToken("sandbox-api-key")).hasMessageContaining("must differ");
            assertThatThrownBy(() -> sandbox.withApiKey(sandbox.getAdminToken())).hasMessageContaining("must differ");
            sandbox.withApiKey("shared");
            assertThatThrownBy(() -> sandbox.withAdminToken("shared")).hasMessageContaining("must differ from the API key");
        }
    }

    @Test
    void refusesSeedsAndCountsOutOfRange() {
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            assertThatThrownBy(() -> sandbox.withSeed(-1)).hasMessage("the seed must be from 0 to 4294967295, got -1");
            assertThatThrownBy(() -> sandbox.withSeed(4_294_967_296L)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> sandbox.withSeedCount(-1)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> sandbox.withSeedCount(1_000_001)).hasMessage("the seed count must be from 0 to 1000000, got 1000001");
        }
    }

    @Test
    void refusesFixturesTogetherWithASeed() throws IOException {
        Path fixtures = Files.writeString(tempDir.resolve("pets.json"), "[]");
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            sandbox.withSeed(7);
            assertThatThrownBy(() -> sandbox.withFixtures(fixtures)).hasMessageContaining("both choose the initial data");
        }
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            sandbox.withFixtures(fixtures);
            assertThatThrownBy(() -> sandbox.withSeed(7)).hasMessageContaining("both choose the initial data");
            assertThatThrownBy(() -> sandbox.withSeedCount(7)).hasMessageContaining("both choose the initial data");
        }
    }

    @Test
    void refusesAMissingFixturesFile() {
        Path missing = tempDir.resolve("missing.json");
        try (AnimalStoreContainer sandbox = new AnimalStoreContainer()) {
            assertThatThrownBy(() -> sandbox.withFixtures(missing)).hasMessage("no fixtures file at " + missing.toAbsolutePath());
            assertThatThrownBy(() -> sandbox.withFixtures(tempDir)).hasMessageStartingWith("no fixtures file at ");
        }
    }

    @Test
    void acceptsAnotherImageOnlyWhenDeclaredASubstitute() {
        assertThatCode(() -> new AnimalStoreContainer("animal-store-sandbox:local").close()).doesNotThrowAnyException();
        assertThatThrownBy(() -> new AnimalStoreContainer("registry.example/team/sandbox:1")).isInstanceOf(IllegalStateException.class);
        DockerImageName mirrored = DockerImageName.parse("registry.example/team/sandbox:1").asCompatibleSubstituteFor("animal-store-sandbox");
        assertThatCode(() -> new AnimalStoreContainer(mirrored).close()).doesNotThrowAnyException();
    }
}
