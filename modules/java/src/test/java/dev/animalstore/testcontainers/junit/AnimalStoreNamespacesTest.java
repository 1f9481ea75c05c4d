package dev.animalstore.testcontainers.junit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Unique names, never given twice, are AnimalStoreNamespacesDeletionTest's: here, the names any test name makes. */
class AnimalStoreNamespacesTest {

    /** The sandbox's rule for a namespace name. */
    private static final String NAMESPACE_NAME = "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}";

    @Test
    void makesAnyTestNameAValidNamespaceNameThatStartsWithIt() {
        assertThat(AnimalStoreNamespaces.uniqueName("createsAPet")).startsWith("createsAPet-").matches(NAMESPACE_NAME);
        assertThat(AnimalStoreNamespaces.uniqueName("[1] with spaces, ünïcode & brackets")).matches(NAMESPACE_NAME);
        assertThat(AnimalStoreNamespaces.uniqueName("__leading_underscores")).matches(NAMESPACE_NAME).startsWith("leading_underscores-");
        assertThat(AnimalStoreNamespaces.uniqueName("x".repeat(200))).matches(NAMESPACE_NAME).hasSize(64);
        assertThat(AnimalStoreNamespaces.uniqueName("---")).matches(NAMESPACE_NAME);
    }
}
