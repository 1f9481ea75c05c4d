package dev.animalstore.testcontainers;

import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.ImageNameSubstitutor;

/**
 * Runs the image named by {@code ANIMAL_STORE_IMAGE}, when set, wherever a test asks for the module's default image,
 * so that the tests build containers exactly as the README shows ({@code new AnimalStoreContainer()}) and still test
 * the image CI just built. Configured in {@code testcontainers.properties}.
 */
public final class SandboxImageSubstitutor extends ImageNameSubstitutor {

    private static final DockerImageName DEFAULT_IMAGE = AnimalStoreContainer.DEFAULT_IMAGE_NAME.withTag(AnimalStoreContainer.DEFAULT_TAG);

    @Override
    public DockerImageName apply(DockerImageName original) {
        String image = System.getenv("ANIMAL_STORE_IMAGE");
        if (image == null || image.isBlank() || !original.asCanonicalNameString().equals(DEFAULT_IMAGE.asCanonicalNameString())) {
            return original;
        }
        return DockerImageName.parse(image);
    }

    @Override
    protected String getDescription() {
        return "ANIMAL_STORE_IMAGE in place of " + DEFAULT_IMAGE.asCanonicalNameString();
    }
}
