package dev.animalstore.testcontainers.control;

import java.util.List;

/**
 * The answer of listNamespaces: the namespaces in memory, least recently used (the next evicted) first.
 *
 * @param max how many namespaces the sandbox keeps at once
 */
public record NamespaceList(int max, List<Usage> namespaces) {

    /** One namespace and how much it holds. */
    public record Usage(String name, int requests, int faults) {}
}
