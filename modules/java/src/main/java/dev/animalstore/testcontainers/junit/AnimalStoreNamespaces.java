package dev.animalstore.testcontainers.junit;

import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.AnimalStoreControlException;
import dev.animalstore.testcontainers.control.NamespaceControl;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives every {@link NamespaceControl} parameter a fresh namespace of the sandbox, so that
 * the tests of a class share one container without seeing each other's pets, journal, faults or clock:
 *
 * <pre>{@code
 * @Container
 * static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer();
 *
 * @RegisterExtension
 * static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);
 *
 * @Test
 * void listsPets(NamespaceControl namespace) { ... namespace.apiHeaders() ... }
 * }</pre>
 *
 * Each parameter gets a namespace of its own, named after the test and made unique; it starts with the sandbox's
 * initial pets on its first use, and is deleted after the test (after the class for a {@code @BeforeAll}
 * parameter), passed or failed, so a long suite does not push the sandbox to evict namespaces. Its calls stay
 * counted in the run's coverage report ({@code getCoverageOfAllNamespaces()}).
 */
public final class AnimalStoreNamespaces implements ParameterResolver, AfterEachCallback, AfterAllCallback {

    /** The sandbox's limit on a namespace name. */
    private static final int MAX_NAME_LENGTH = 64;

    private static final int SUFFIX_LENGTH = 8;

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(AnimalStoreNamespaces.class);

    private final Supplier<AnimalStoreControlClient> controlClient;

    /**
     * @param controlClient asked when a test needs a namespace, so a container's client can be passed before the
     *     container has started, e.g. {@code SANDBOX::getControlClient}
     */
    public AnimalStoreNamespaces(Supplier<AnimalStoreControlClient> controlClient) {
        this.controlClient = Objects.requireNonNull(controlClient, "controlClient");
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == NamespaceControl.class;
    }

    @Override
    public NamespaceControl resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        AnimalStoreControlClient control = controlClient.get();
        NamespaceControl namespace = control.namespace(uniqueName(extensionContext.getTestMethod().map(method -> method.getName()).orElse("test")));
        created(extensionContext).add(namespace.name());
        // A reset brings the namespace into being: reading one that does not exist is a 404.
        namespace.reset();
        return namespace;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        deleteCreated(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        deleteCreated(context);
    }

    /**
     * The names given in this context. Keyed by the context's id: a store's lookup falls back to the parent context's,
     * and a test must not delete the namespaces its class's {@code @BeforeAll} was given.
     */
    @SuppressWarnings("unchecked")
    private static List<String> created(ExtensionContext context) {
        return context.getStore(STORE).getOrComputeIfAbsent(context.getUniqueId(), id -> new ArrayList<String>(), List.class);
    }

    private void deleteCreated(ExtensionContext context) {
        List<String> names = created(context);
        if (names.isEmpty()) {
            return;
        }
        AnimalStoreControlClient control = controlClient.get();
        for (String name : names) {
            try {
                control.deleteNamespace(name);
            } catch (AnimalStoreControlException e) {
                // The test deleted it itself.
                if (e.status() != 404) {
                    throw e;
                }
            }
        }
        names.clear();
    }

    /** e.g. {@code createsAPet-3f9a1c2e}: readable in the sandbox's logs and listNamespaces, and never reused. */
    static String uniqueName(String testName) {
        String readable = testName.replaceAll("[^A-Za-z0-9_.-]", "-").replaceAll("^[^A-Za-z0-9]+", "");
        String suffix = UUID.randomUUID().toString().substring(0, SUFFIX_LENGTH).toLowerCase(Locale.ROOT);
        int room = MAX_NAME_LENGTH - suffix.length() - 1;
        if (readable.length() > room) {
            readable = readable.substring(0, room);
        }
        return readable.isEmpty() ? suffix : readable + "-" + suffix;
    }
}
