package dev.animalstore.testcontainers.suitecheck;

import static org.assertj.core.api.Assertions.assertThat;

import dev.animalstore.testcontainers.control.NamespaceControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** A test class of the suite: its test works in a namespace it deletes when done. */
@Order(1)
class PetsSuite {

    private NamespaceControl namespace;

    @Test
    void listsPets() throws Exception {
        namespace = SuiteSandbox.ownNamespace("listsPets");
        assertThat(SuiteSandbox.get(namespace, "/pets")).isEqualTo(200);
    }

    @Test
    void callsListOrders() throws Exception {
        namespace = SuiteSandbox.ownNamespace("callsListOrders");
        if (!Boolean.getBoolean("suitecheck.skipOrders")) {
            assertThat(SuiteSandbox.get(namespace, "/store/orders")).isEqualTo(501);
        }
    }

    @AfterEach
    void deleteNamespace() {
        SuiteSandbox.control().deleteNamespace(namespace.name());
    }
}
