package dev.animalstore.testcontainers;

import com.github.dockerjava.api.command.InspectContainerResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;

/**
 * Waits until {@code GET path} answers 200, and gives up as soon as the container is no longer running.
 * Testcontainers' own HTTP wait strategy keeps polling a container that has exited until its startup timeout (60 s
 * by default), and its startup check ({@code IsRunningStartupCheckStrategy}) passes before the sandbox has read its
 * settings: a sandbox that refuses them exits a fraction of a second later, and only a check made while waiting
 * notices.
 */
final class HealthCheckWaitStrategy extends AbstractWaitStrategy {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);

    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    /** One for every start: each HttpClient keeps a thread of its own. */
    private static final HttpClient HTTP = HttpClient
        .newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(PROBE_TIMEOUT)
        .build();

    private final String path;

    private final int port;

    HealthCheckWaitStrategy(String path, int port) {
        this.path = path;
        this.port = port;
    }

    @Override
    protected void waitUntilReady() {
        URI health = URI.create("http://" + waitStrategyTarget.getHost() + ":" + waitStrategyTarget.getMappedPort(port) + path);
        HttpRequest probe = HttpRequest.newBuilder(health).timeout(PROBE_TIMEOUT).GET().build();
        Instant deadline = Instant.now().plus(startupTimeout);
        String lastAnswer = "no answer";
        try {
            while (true) {
                InspectContainerResponse.ContainerState state = waitStrategyTarget.getCurrentContainerInfo().getState();
                if (!Boolean.TRUE.equals(state.getRunning())) {
                    throw new ContainerLaunchException(
                        "the container exited with code " + state.getExitCodeLong() + " before " + path + " answered 200"
                    );
                }
                try {
                    int status = HTTP.send(probe, HttpResponse.BodyHandlers.discarding()).statusCode();
                    if (status == 200) {
                        return;
                    }
                    lastAnswer = "status " + status;
                } catch (IOException notListeningYet) {
                    lastAnswer = notListeningYet.toString();
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new ContainerLaunchException(
                        "timed out after " + startupTimeout.toSeconds() + " s waiting for " + health + " to answer 200 (last: " + lastAnswer + ")"
                    );
                }
                Thread.sleep(POLL_INTERVAL.toMillis());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ContainerLaunchException("interrupted while waiting for " + health, e);
        }
    }
}
