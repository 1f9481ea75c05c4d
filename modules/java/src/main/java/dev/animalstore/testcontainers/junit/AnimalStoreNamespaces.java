package dev.animalstore.testcontainers.junit;

import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.api.NamespacesApi;
import dev.animalstore.testcontainers.control.api.NamespacesApi.APIDeleteNamespaceRequest;
import dev.animalstore.testcontainers.control.api.StateApi;
import dev.animalstore.testcontainers.control.api.StateApi.APIResetRequest;
import dev.animalstore.testcontainers.control.invoker.ApiException;
import dev.animalstore.testcontainers.control.model.ResetRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * A JUnit 5 extension that gives every {@link NamespaceControl} parameter a fresh namespace of the sandbox, so that
 * the tests of a class share one container without seeing each other's pets, journal, faults or clock:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);
 *
 * @Test
 * void listsPets(NamespaceControl namespace) { ... namespace.apiHeaders() ... }
 * }</pre>
 *
 * Each namespace is named after its test, made unique, and deleted after the test (after the class for a
 * {@code @BeforeAll} parameter), passed or failed, so a long suite does not push the sandbox to evict namespaces.
 * Its calls stay counted in the run's coverage report ({@code getCoverage} with {@code all(true)}).
 */
public final class AnimalStoreNamespaces implements ParameterResolver, AfterEachCallback, AfterAllCallback {

    private static final ExtensionContext.Namespace STORE = ExtensionContext.Namespace.create(AnimalStoreNamespaces.class);

    private final Supplier<AnimalStoreControlClient> controlClient;

    /** @param controlClient asked when a test needs a namespace: a container's before it has started, e.g. {@code SANDBOX::getControlClient} */
    public AnimalStoreNamespaces(Supplier<AnimalStoreControlClient> controlClient) {
        this.controlClient = controlClient;
    }

    @Override
    public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
        return parameterContext.getParameter().getType() == NamespaceControl.class;
    }

    @Override
    public NamespaceControl resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) throws ParameterResolutionException {
        NamespaceControl namespace = controlClient.get().namespace(uniqueName(extensionContext.getTestMethod().map(method -> method.getName()).orElse("test")));
        created(extensionContext).add(namespace.name());
        // A reset brings the namespace into being: reading one that does not exist is a 404.
        try {
            namespace.api(StateApi.class).reset(APIResetRequest.newBuilder().resetRequest(new ResetRequest()).build());
        } catch (ApiException e) {
            throw new ParameterResolutionException("the sandbox refused to reset namespace " + namespace.name(), e);
        }
        return namespace;
    }

    @Override
    public void afterAll(ExtensionContext context) throws ApiException {
        afterEach(context);
    }

    /** Keyed by the context's id: a store's lookup falls back to the parent's, and a test must not delete its class's. */
    @SuppressWarnings("unchecked")
    static List<String> created(ExtensionContext context) {
        return context.getStore(STORE).getOrComputeIfAbsent(context.getUniqueId(), id -> new ArrayList<String>(), List.class);
    }

    @Override
    public void afterEach(ExtensionContext context) throws ApiException {
        List<String> names = created(context);
        for (String name : names) {
            try {
                controlClient.get().api(NamespacesApi.class).deleteNamespace(APIDeleteNamespaceRequest.newBuilder().name(name).build());
            } catch (ApiException e) {
                // A 404: the test deleted it itself.
                if (e.getCode() != 404) {
                    throw e;
                }
            }
        }
        names.clear();
    }

    /** e.g. {@code createsAPet-3f9a1c2e}: readable in the sandbox's logs, never reused, and a name the sandbox takes. */
    static String uniqueName(String testName) {
        String readable = testName.replaceAll("[^A-Za-z0-9_.-]", "-").replaceAll("^[^A-Za-z0-9]+", "");
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        return readable.isEmpty() ? suffix : readable.substring(0, Math.min(readable.length(), 55)) + "-" + suffix;
    }
}
