package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The README's end-of-suite check (the suitecheck package), run as a suite of its own through the JUnit Platform, as
 * Surefire runs one: it passes when the suite called listOrders, in a namespace deleted since, and fails (its other
 * tests passing) when it did not.
 */
@DockerTest
class SuiteCheckTest {

    @AfterEach
    void clearProperty() {
        System.clearProperty("suitecheck.skipOrders");
    }

    @Test
    void passesWhenTheSuiteExercisedWhatItCovers() {
        TestExecutionSummary summary = runSuite();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(3);
        assertThat(summary.getTotalFailureCount()).isZero();
    }

    @Test
    void failsTheRunWhenAResponseIsNeverExercised() {
        System.setProperty("suitecheck.skipOrders", "true");
        TestExecutionSummary summary = runSuite();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
        assertThat(summary.getFailures()).singleElement().satisfies(failure -> {
            assertThat(failure.getTestIdentifier().getDisplayName()).isEqualTo("everyResponseTheSuiteCoversWasExercised()");
            assertThat(failure.getException()).isInstanceOf(AssertionError.class).hasMessageContaining("listOrders").hasMessageContaining("default");
        });
    }

    private static TestExecutionSummary runSuite() {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
            .selectors(selectPackage("dev.animalstore.testcontainers.suitecheck"))
            // Every class, not only those Surefire's names pick; the end-of-suite check last.
            .filters(org.junit.platform.launcher.EngineFilter.includeEngines("junit-jupiter"))
            .configurationParameters(Map.of("junit.jupiter.testclass.order.default", "org.junit.jupiter.api.ClassOrderer$OrderAnnotation"))
            .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        return listener.getSummary();
    }
}
