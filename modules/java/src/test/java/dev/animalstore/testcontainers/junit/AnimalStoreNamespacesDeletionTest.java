package dev.animalstore.testcontainers.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.DockerTest;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.api.NamespacesApi;
import dev.animalstore.testcontainers.control.api.NamespacesApi.APIDeleteNamespaceRequest;
import dev.animalstore.testcontainers.control.api.VerificationApi;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIGetCoverageRequest;
import dev.animalstore.testcontainers.control.invoker.ApiException;
import dev.animalstore.testcontainers.control.model.CoverageReport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.testcontainers.junit.jupiter.Container;

/**
 * The extension deletes the namespaces it gave a test once the test is done, passed or failed, and those it gave a
 * {@code @BeforeAll} once the class is done; their calls stay counted in the run's coverage report. {@link
 * TestsInNamespaces} runs through the JUnit Platform, as Surefire runs a class.
 */
@DockerTest
class AnimalStoreNamespacesDeletionTest {

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    /** The namespaces given to the tests of {@link TestsInNamespaces}, in the order they ran. */
    static final List<String> GIVEN = new CopyOnWriteArrayList<>();

    @Test
    void deletesEachTestsNamespacesAfterTheTestAndKeepsTheirCallsCounted() throws ApiException {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(TestsInNamespaces.class)).build(), listener);
        TestExecutionSummary summary = listener.getSummary();

        assertThat(summary.getTestsSucceededCount()).as("the tests that passed").isEqualTo(3);
        assertThat(summary.getFailures())
            .singleElement()
            .satisfies(failure -> assertThat(failure.getException()).hasMessage("a failed test's namespace is deleted all the same"));
        assertThat(GIVEN).hasSize(6).doesNotHaveDuplicates();
        assertThat(names()).doesNotContainAnyElementsOf(GIVEN);

        CoverageReport run = SANDBOX.getControlClient().api(VerificationApi.class).getCoverage(APIGetCoverageRequest.newBuilder().all(true).build());
        assertThat(run.getSummary().getNamespacesDeleted()).as("namespaces deleted since the start").isEqualTo(6);
        assertThat(run.getOperations().get(0).getCalls()).as("the calls of listPets in the namespaces deleted").isEqualTo(2);
    }

    private static List<String> names() throws ApiException {
        return SANDBOX.getControlClient().api(NamespacesApi.class).listNamespaces().getNamespaces().stream().map(listed -> listed.getName()).toList();
    }

    @TestMethodOrder(MethodOrderer.OrderAnnotation.class)
    static class TestsInNamespaces {

        @RegisterExtension
        static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

        private static NamespaceControl shared;

        @BeforeAll
        static void giveTheClassANamespace(NamespaceControl namespace) {
            shared = namespace;
            GIVEN.add(namespace.name());
        }

        @Test
        @Order(1)
        void takesTwo(NamespaceControl first, NamespaceControl second) throws Exception {
            GIVEN.add(first.name());
            GIVEN.add(second.name());
            assertThat(names()).contains(first.name(), second.name());
            assertThat(listPets(first)).isEqualTo(200);
        }

        @Test
        @Order(2)
        void failsAfterACall(NamespaceControl namespace) throws Exception {
            GIVEN.add(namespace.name());
            assertThat(listPets(namespace)).isEqualTo(200);
            throw new AssertionError("a failed test's namespace is deleted all the same");
        }

        @Test
        @Order(3)
        void runsAfterTheOthersNamespacesAreDeleted(NamespaceControl namespace) throws ApiException {
            GIVEN.add(namespace.name());
            List<String> inUse = names();
            assertThat(inUse).contains(namespace.name(), shared.name()).doesNotContainAnyElementsOf(GIVEN.subList(1, 4));
        }

        @Test
        @Order(4)
        void deletesItsNamespaceItself(NamespaceControl namespace) throws ApiException {
            GIVEN.add(namespace.name());
            SANDBOX.getControlClient().api(NamespacesApi.class).deleteNamespace(APIDeleteNamespaceRequest.newBuilder().name(namespace.name()).build());
        }

        private static int listPets(NamespaceControl namespace) throws Exception {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(SANDBOX.getBaseUrl() + "/pets?limit=1"));
            namespace.apiHeaders().forEach(request::header);
            return HttpClient.newHttpClient().send(request.build(), BodyHandlers.discarding()).statusCode();
        }
    }
}
