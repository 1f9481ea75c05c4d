package dev.animalstore.testcontainers.control;

/** The answer of clearRequests and clearFaults: how many entries were removed. */
public record Cleared(String namespace, int cleared) {}
