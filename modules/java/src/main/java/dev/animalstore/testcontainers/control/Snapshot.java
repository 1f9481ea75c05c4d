package dev.animalstore.testcontainers.control;

import java.time.Instant;
import java.util.List;

/**
 * A namespace's pets and clock frozen under a name, which {@link ResetOptions#fromSnapshot(String)} starts a
 * namespace from.
 *
 * @param namespace the namespace it was taken from
 * @param pets how many pets it holds
 * @param clock the namespace's clock when it was taken, where a namespace reset to it starts its clock; null when
 *     that clock followed real time
 * @param forks the namespaces that start from it (while there are any, it cannot be deleted)
 */
public record Snapshot(String name, String namespace, int pets, Instant clock, Instant createdAt, List<String> forks) {}
