// src/test/java/SuiteSandbox.java
package dev.animalstore.testcontainers.suitecheck; // test only

import dev.animalstore.testcontainers.AnimalStoreContainer;
import dev.animalstore.testcontainers.control.AnimalStoreControlClient;

/** One sandbox for every test class of the run, started by the first that asks for it, stopped by the last. */
final class SuiteSandbox {

    private static AnimalStoreContainer sandbox;

    private SuiteSandbox() {}

    static synchronized AnimalStoreContainer get() {
        if (sandbox == null) {
            sandbox = new AnimalStoreContainer().withInMemory();
            sandbox.start();
        }
        return sandbox;
    }

    static AnimalStoreControlClient control() {
        return get().getControlClient();
    }

    static synchronized void stop() {
        if (sandbox != null) {
            sandbox.stop();
            sandbox = null;
        }
    }
}
