package dev.animalstore.testcontainers.suitecheck;

import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.NamespaceControl;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;

/**
 * One sandbox for every class of the suite, started by the first that needs it (Testcontainers' reaper, or the
 * suite's end, stops it), and the calls the suite's tests make, each in a namespace of its own that it deletes.
 */
final class SuiteSandbox {

    private static AnimalStoreContainer sandbox;

    private SuiteSandbox() {}

    static synchronized AnimalStoreControlClient control() {
        if (sandbox == null) {
            sandbox = new AnimalStoreContainer().withInMemory();
            sandbox.start();
        }
        return sandbox.getControlClient();
    }

    static synchronized void stop() {
        if (sandbox != null) {
            sandbox.stop();
            sandbox = null;
        }
    }

    static NamespaceControl ownNamespace(String test) {
        NamespaceControl namespace = control().namespace(test + "-" + UUID.randomUUID().toString().substring(0, 8));
        namespace.reset();
        return namespace;
    }

    static int get(NamespaceControl namespace, String path) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(sandbox.getBaseUrl() + path));
        namespace.apiHeaders().forEach(request::header);
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
