package dev.animalstore.testcontainers.control;

/** The answer of reset and replacePets: how many pets the namespace now holds. */
public record StateSummary(String namespace, int pets) {}
