package dev.animalstore.testcontainers;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.testcontainers.DockerClientFactory;

/**
 * Skips a test class when no Docker engine is reachable, and fails it instead under {@code REQUIRE_DOCKER=1}, where a
 * skip would hide that the tests did not run ({@code @Testcontainers(disabledWithoutDocker = true)} can only skip).
 * <p>
 * The skip is a disabling condition rather than an assumption in {@code beforeAll}: Surefire counts the tests of a
 * disabled class as skipped, but reports a class aborted in {@code beforeAll} as zero tests run. Registered before
 * {@code @Testcontainers}, so that the failure comes before any container start is tried.
 */
public final class DockerRequirement implements ExecutionCondition, BeforeAllCallback {

    private static final boolean DOCKER_REQUIRED = "1".equals(System.getenv("REQUIRE_DOCKER"));

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (DOCKER_REQUIRED || dockerReachable()) {
            return ConditionEvaluationResult.enabled("a Docker engine is reachable, or REQUIRE_DOCKER=1");
        }
        return ConditionEvaluationResult.disabled("no Docker engine is reachable: skipped (REQUIRE_DOCKER=1 makes this a failure)");
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        assertTrue(dockerReachable(), "no Docker engine is reachable, and REQUIRE_DOCKER=1 requires one");
    }

    private static boolean dockerReachable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }
}
