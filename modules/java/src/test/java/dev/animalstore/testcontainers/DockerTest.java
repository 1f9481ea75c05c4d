package dev.animalstore.testcontainers;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Testcontainers;

/** A test class that runs containers: skipped without Docker (failed under REQUIRE_DOCKER=1), then {@code @Testcontainers}. */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(DockerRequirement.class)
@Testcontainers
public @interface DockerTest {}
