package dev.animalstore.testcontainers.control;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A namespace's bundle ({@code GET /__admin/bundle}, docs/bundle.md): one file that {@code animal-store-sandbox replay}
 * turns back into the calls a test made and the answers it got. Saved as the sandbox sent it, secrets already cut: the
 * generated {@code FaultsApi.getBundle} would read it into models and write back only the fields they know.
 */
public final class Bundles {

    private Bundles() {}

    /** Writes the bundle of namespace {@code namespace} of the sandbox {@code control} reaches to {@code file}, and returns it. */
    public static Path save(AnimalStoreControlClient control, String namespace, Path file) throws IOException, InterruptedException {
        URI uri = URI.create(control.sandboxUrl.toString().replaceAll("/*$", "") + "/__admin/bundle?namespace=" + URLEncoder.encode(namespace, StandardCharsets.UTF_8));
        HttpRequest request = HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + control.adminToken).timeout(Duration.ofSeconds(30)).GET().build();
        HttpResponse<byte[]> answer = control.http.build().send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (answer.statusCode() != 200) {
            throw new IOException("GET /bundle of namespace " + namespace + " answered " + answer.statusCode() + ": " + new String(answer.body(), StandardCharsets.UTF_8));
        }
        Files.createDirectories(file.toAbsolutePath().getParent());
        return Files.write(file, answer.body());
    }
}
