package dev.animalstore.testcontainers.control;

import java.time.Instant;

/**
 * A namespace's clock.
 *
 * @param real true when it follows real time
 */
public record Clock(String namespace, Instant now, boolean real) {}
