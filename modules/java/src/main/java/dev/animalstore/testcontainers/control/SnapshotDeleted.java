package dev.animalstore.testcontainers.control;

/**
 * The answer of deleteSnapshot.
 *
 * @param snapshot the snapshot deleted
 * @param deleted always true: an unknown snapshot is a 404, one still in use a 409
 */
public record SnapshotDeleted(String snapshot, boolean deleted) {}
