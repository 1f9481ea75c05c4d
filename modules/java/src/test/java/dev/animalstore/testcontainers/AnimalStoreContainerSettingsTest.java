package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.testcontainers.utility.DockerImageName;

/** What a container is given before it starts: no Docker needed. The sandbox itself judges the settings. */
class AnimalStoreContainerSettingsTest {

    @Test
    void defaultImageIsTheOneOfTheProjectVersion() throws IOException {
        String version = new ObjectMapper().readTree(Path.of("../../package.json").toFile()).get("version").asText();
        assertThat(AnimalStoreContainer.DEFAULT_TAG).isEqualTo(version);
        // Not the container's image name, which ANIMAL_STORE_IMAGE may substitute (SandboxImageSubstitutor).
        assertThat(AnimalStoreContainer.DEFAULT_IMAGE_NAME.withTag(AnimalStoreContainer.DEFAULT_TAG).asCanonicalNameString())
            .isEqualTo("animal-store-sandbox:" + version);
    }

    @Test
    void theCaIsThereOnlyOnceAContainerWithTlsIsUp() {
        try (AnimalStoreContainer plain = new AnimalStoreContainer(); AnimalStoreContainer tls = new AnimalStoreContainer().withTls()) {
            assertThat(tls.getEnvMap()).containsEntry("TLS", "auto");
            assertThatThrownBy(plain::getTlsCa).isInstanceOf(IllegalStateException.class).hasMessage("the sandbox serves plain HTTP: withTls() asks for HTTPS");
            assertThatThrownBy(tls::getSslContext).isInstanceOf(IllegalStateException.class).hasMessage("the sandbox's CA is read once the container is up: start() it first");
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
