package dev.animalstore.testcontainers.control;

/**
 * The answer of deleteNamespace.
 *
 * @param namespace the namespace deleted
 * @param deleted always true: an unknown namespace is a 404
 */
public record Deleted(String namespace, boolean deleted) {}
