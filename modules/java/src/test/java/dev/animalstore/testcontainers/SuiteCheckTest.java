package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.ClassNameFilter.excludeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.discovery.ClassNameFilter;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * The README's end-of-suite check (the suitecheck package, with its junit-platform.properties), run as a suite of
 * its own through the JUnit Platform, as Surefire runs one: it passes when the suite called listOrders, in a namespace
 * deleted since, and fails when the class that calls it is gone.
 */
@DockerTest
class SuiteCheckTest {

    private static final String SUITE = "dev.animalstore.testcontainers.suitecheck";

    @Test
    void passesWhenTheSuiteExercisedWhatItCovers() {
        TestExecutionSummary summary = runSuite(ClassNameFilter.includeClassNamePatterns(".*"));
        assertThat(summary.getFailures()).isEmpty();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
    }

    @Test
    void failsTheRunWhenAResponseIsNeverExercised() {
        TestExecutionSummary summary = runSuite(excludeClassNamePatterns(Pattern.quote(SUITE + ".OrdersTest")));
        assertThat(summary.getTestsSucceededCount()).isZero();
        assertThat(summary.getFailures()).singleElement().satisfies(failure -> {
            assertThat(failure.getTestIdentifier().getDisplayName()).isEqualTo("everyResponseTheSuiteCoversWasExercised()");
            assertThat(failure.getException())
                .isInstanceOf(AssertionError.class)
                .hasMessage("documented responses never exercised (every namespace):\n- listOrders (GET /v1/store/orders): default");
        });
    }

    private static TestExecutionSummary runSuite(ClassNameFilter classes) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
            .selectors(selectPackage(SUITE))
            .filters(EngineFilter.includeEngines("junit-jupiter"), classes)
            // The check last, as the README's junit-platform.properties orders it.
            .configurationParametersResources("suitecheck/junit-platform.properties")
            .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        return listener.getSummary();
    }
}
