package dev.animalstore.testcontainers.control;

/**
 * A pet as the control API exports and replaces it (the API's Pet schema).
 *
 * @param status {@code available}, {@code pending} or {@code sold}; null when the pet has none
 */
public record Pet(long id, String name, long categoryId, String status) {}
