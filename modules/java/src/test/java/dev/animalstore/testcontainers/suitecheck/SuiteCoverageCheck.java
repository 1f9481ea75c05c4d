package dev.animalstore.testcontainers.suitecheck;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The end-of-suite check: the last class of the run ({@code junit.jupiter.testclass.order.default=
 * org.junit.jupiter.api.ClassOrderer$OrderAnnotation} in junit-platform.properties),
 * whose test fails, and so fails the build, when a response the suite claims to cover was never exercised. The
 * report of every namespace counts every call of the run, those made in namespaces deleted since included.
 */
@Order(Integer.MAX_VALUE)
class SuiteCoverageCheck {

    /** The operations the suite claims to cover: every documented response of each exercised. */
    private static final String[] COVERED = {"listOrders"};

    @Test
    void everyResponseTheSuiteCoversWasExercised() {
        SuiteSandbox.control().getCoverageOfAllNamespaces().assertAllResponsesExercised(COVERED);
    }

    @AfterAll
    static void stopTheSandbox() {
        SuiteSandbox.stop();
    }
}
