package dev.animalstore.testcontainers.control;

import java.util.List;

/** The answer of listSnapshots: the snapshots, oldest first, each with the namespaces that start from it. */
public record SnapshotList(int count, List<Snapshot> snapshots) {}
