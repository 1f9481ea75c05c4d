package dev.animalstore.testcontainers;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.testcontainers.containers.output.OutputFrame;

/**
 * What the sandbox writes to stderr while it starts: when it refuses a setting, the one line that says why. It is
 * kept here rather than read from the container after a failure, because Testcontainers removes a container that
 * failed to start before the failure reaches the caller.
 */
final class StartupErrorOutput implements Consumer<OutputFrame> {

    private final StringBuilder stderr = new StringBuilder();

    private CountDownLatch outputEnded = new CountDownLatch(1);

    private boolean recording;

    synchronized void startRecording() {
        stderr.setLength(0);
        outputEnded = new CountDownLatch(1);
        recording = true;
    }

    /** Once the sandbox is up, its stderr is of no more interest here. */
    synchronized void stopRecording() {
        recording = false;
        stderr.setLength(0);
    }

    @Override
    public synchronized void accept(OutputFrame frame) {
        if (frame.getType() == OutputFrame.OutputType.END) {
            outputEnded.countDown();
        } else if (recording && frame.getType() == OutputFrame.OutputType.STDERR) {
            stderr.append(frame.getUtf8String());
        }
    }

    /**
     * The stderr recorded, once the container's output has ended (a container that exited has said all it will),
     * or after {@code grace} when it has not.
     */
    String awaitStderr(Duration grace) throws InterruptedException {
        CountDownLatch ended;
        synchronized (this) {
            ended = outputEnded;
        }
        ended.await(grace.toMillis(), TimeUnit.MILLISECONDS);
        synchronized (this) {
            return stderr.toString().strip();
        }
    }
}
