package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.SandboxAssertions;
import dev.animalstore.testcontainers.control.api.VerificationApi;
import dev.animalstore.testcontainers.control.api.VerificationApi.APIEndTestRequest;
import dev.animalstore.testcontainers.control.model.AwaitRequest;
import dev.animalstore.testcontainers.control.model.AwaitResult;
import dev.animalstore.testcontainers.control.model.Expectation;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/**
 * The wait and the stray calls against the image: a background thread makes the call after a random delay and the test
 * awaits it on the sandbox with no sleep; a call into the namespace after its test ended makes assertNoStrayCalls fail,
 * naming it.
 */
@DockerTest
class AnimalStoreAwaitTest {

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void aCallABackgroundJobMakesLaterIsAwaitedWithNoSleep(NamespaceControl namespace) throws Exception {
        long delay = ThreadLocalRandom.current().nextLong(1000);
        CompletableFuture<Integer> job = CompletableFuture.supplyAsync(() -> {
            try {
                return api(namespace).get("/pets").statusCode();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS));
        // README await snippet begins
        AwaitResult result = namespace.assertAwaited(Duration.ofSeconds(10), new Expectation().operationId("listPets").count(1));
        // README await snippet ends
        assertThat(result.getEndedBy()).as("the call made after %d ms", delay).isEqualTo(AwaitResult.EndedByEnum.MET);
        assertThat(job.get(10, TimeUnit.SECONDS)).isEqualTo(200);

        AwaitResult missing = namespace.awaitRequests(new AwaitRequest().timeoutMs(200).expectations(List.of(new Expectation().operationId("createPet").min(1))));
        assertThat(missing.getPassed()).isFalse();
        assertThat(missing.getEndedBy()).isEqualTo(AwaitResult.EndedByEnum.DEADLINE);
        assertThatThrownBy(() -> SandboxAssertions.assertAwaited(missing))
            .isInstanceOf(AssertionError.class)
            .hasMessageMatching("(?s)verification \\(namespace " + namespace.name() + "\\) .*createPet.* \\(the wait ended by deadline after \\d+ ms\\)");
    }

    @Test
    void aCallAfterTheTestEndedFailsAssertNoStrayCalls(NamespaceControl namespace) throws Exception {
        assertThat(api(namespace).get("/pets").statusCode()).isEqualTo(200);
        // The service settles before its test ends: the namespace quiet for 10 ms.
        assertThat(namespace.awaitRequests(new AwaitRequest().quietMs(10)).getEndedBy()).isEqualTo(AwaitResult.EndedByEnum.QUIET);
        namespace.api(VerificationApi.class).endTest(APIEndTestRequest.newBuilder().name(namespace.name()).build());
        namespace.assertNoStrayCalls(); // the call made during the test is no stray

        assertThat(api(namespace).get("/pets").statusCode()).isEqualTo(200);
        assertThatThrownBy(namespace::assertNoStrayCalls)
            .isInstanceOf(AssertionError.class)
            .hasMessage("stray calls (test " + namespace.name() + "):\n- after-end: listPets (GET /v1/pets) answered 200, in namespace " + namespace.name());
    }

    private static ApiClient api(NamespaceControl namespace) {
        return new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
    }
}
