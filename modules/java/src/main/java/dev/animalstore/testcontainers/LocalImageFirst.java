package dev.animalstore.testcontainers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.exception.NotFoundException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ContainerFetchException;
import org.testcontainers.images.ImagePullPolicy;
import org.testcontainers.utility.DockerImageName;

/**
 * The image on this engine is used as it is; a missing one is pulled once, and a failed pull fails the start at once
 * with what to do. Testcontainers' own pull retries for minutes when no registry answers, which a mistyped tag or an
 * image never built would otherwise cost every start.
 */
final class LocalImageFirst implements ImagePullPolicy {

    /** Bounds a pull that started: a real image from a slow registry, never a refused one, which fails at once. */
    private static final Duration PULL_TIMEOUT = Duration.ofMinutes(10);

    @Override
    public boolean shouldPull(DockerImageName image) {
        DockerClient docker = DockerClientFactory.lazyClient();
        String name = image.asCanonicalNameString();
        try {
            docker.inspectImageCmd(name).exec();
            return false;
        } catch (NotFoundException missing) {
            // Pulled here, once: answering true would hand it to the retrying pull.
        }
        try {
            boolean done = docker
                .pullImageCmd(image.getUnversionedPart())
                .withTag(image.getVersionPart())
                .start()
                .awaitCompletion(PULL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (!done) {
                throw new MissingImageException(name, "the pull did not finish within " + PULL_TIMEOUT.toMinutes() + " minutes", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MissingImageException(name, "the pull was interrupted", e);
        } catch (RuntimeException e) {
            throw new MissingImageException(name, firstLine(e.getMessage()), e);
        }
        return false;
    }

    private static String firstLine(String message) {
        return message == null ? "no reason given" : message.strip().lines().findFirst().orElse("no reason given");
    }

    /** The image is neither on the engine nor pullable; the message names it and says how to get it. */
    private static final class MissingImageException extends ContainerFetchException {

        private static final long serialVersionUID = 1L;

        MissingImageException(String image, String why, Exception cause) {
            super(
                "The Animal Store sandbox did not start: the image " + image + " is not on this Docker engine, and pulling it failed ("
                    + why + "). Build it in the sandbox's repository with `npm run image` (it tags the image :local and with the "
                    + "package's version), or load a saved one with `docker load -i <file>`; or pass another image to the constructor.",
                cause
            );
        }
    }
}
