// src/test/java/SuiteCoverageCheckTest.java
package dev.animalstore.testcontainers.suitecheck; // test only

import static dev.animalstore.testcontainers.control.SandboxAssertions.assertAllResponsesExercised;

import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/** The last class of the run (junit-platform.properties): it fails the build when the suite missed a response. */
@Order(Integer.MAX_VALUE)
class SuiteCoverageCheckTest {

    @Test
    void everyResponseTheSuiteCoversWasExercised() {
        // Every call of the run, those made in namespaces deleted since included.
        assertAllResponsesExercised(SuiteSandbox.control().getCoverage(Map.of("all", true)), "listOrders");
    }

    @AfterAll
    static void stopTheSandbox() {
        SuiteSandbox.stop();
    }
}
