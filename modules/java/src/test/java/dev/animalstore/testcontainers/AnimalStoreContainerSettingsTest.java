package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.testcontainers.utility.DockerImageName;

/** What a container is given before it starts: no Docker needed. The sandbox itself judges the settings. */
class AnimalStoreContainerSettingsTest {

    @TempDir
    Path tempDir;

    @Test
    void defaultImageIsTheOneOfTheProjectVersion() throws IOException {
        String version = new ObjectMapper().readTree(Path.of("../../package.json").toFile()).get("version").asText();
        assertThat(AnimalStoreContainer.DEFAULT_TAG).isEqualTo(version);
        // Not the container's image name, which ANIMAL_STORE_IMAGE may substitute (SandboxImageSubstitutor).
        assertThat(AnimalStoreContainer.DEFAULT_IMAGE_NAME.withTag(AnimalStoreContainer.DEFAULT_TAG).asCanonicalNameString())
            .isEqualTo("animal-store-sandbox:" + version);
    }

    @Test
    void eachContainerHasAKeyAndAnAdminTokenOfItsOwn() {
        try (AnimalStoreContainer first = new AnimalStoreContainer(); AnimalStoreContainer second = new AnimalStoreContainer()) {
            assertThat(first.getEnvMap()).containsEntry("API_KEYS", first.getApiKey()).containsEntry("ADMIN_TOKEN", first.getAdminToken());
            assertThat(first.getApiKey()).isNotEqualTo(second.getApiKey()).isNotEqualTo(first.getAdminToken());
            assertThat(first.getAdminToken()).isNotEqualTo(second.getAdminToken());
        }
    }

    @Test
    void settingsBecomeTheSandboxEnvironment() throws IOException {
        Path fixtures = Files.writeString(tempDir.resolve("pets.json"), "[]");
        try (
            AnimalStoreContainer seeded = new AnimalStoreContainer()
                .withSeed(4_294_967_295L)
                .withSeedCount(0)
                .withInMemory()
                .withApiKey("team-key")
                .withAdminToken("team-admin");
            AnimalStoreContainer fromFixtures = new AnimalStoreContainer().withFixtures(fixtures)
        ) {
            assertThat(seeded.getEnvMap())
                .containsEntry("SEED", "4294967295")
                .containsEntry("SEED_COUNT", "0")
                .containsEntry("DATA_FILE", ":memory:")
                .containsEntry("API_KEYS", "team-key")
                .containsEntry("ADMIN_TOKEN", "team-admin");
            assertThat(seeded.getApiKey()).isEqualTo("team-key");
            assertThat(seeded.getAdminToken()).isEqualTo("team-admin");
            assertThat(fromFixtures.getEnvMap()).containsEntry("FIXTURES", "/fixtures/pets.json");
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
