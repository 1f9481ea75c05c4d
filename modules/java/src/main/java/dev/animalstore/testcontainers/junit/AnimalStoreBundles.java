package dev.animalstore.testcontainers.junit;

import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.Bundles;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that saves the bundle (docs/bundle.md) of each namespace {@link AnimalStoreNamespaces} gave a
 * test, when that test fails: before the namespace is deleted, into Maven Surefire's reports folder, beside the
 * test's own report, as {@code <TestClass>.<method>.bundle.json} ({@code dev.example.PetsTest.createsAPet.bundle.json},
 * the class by its full name as Surefire names its reports). Registered beside that extension:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final AnimalStoreBundles BUNDLES = new AnimalStoreBundles(SANDBOX::getControlClient);
 * }</pre>
 *
 * The folder is {@value #FOLDER_PARAMETER} when set (a JUnit configuration parameter, or a system property, e.g. in
 * Surefire's {@code systemPropertyVariables} with a {@code reportsDirectory} of your own), else
 * {@code target/surefire-reports} under the project's folder (Surefire's {@code basedir}).
 */
public final class AnimalStoreBundles implements AfterTestExecutionCallback {

    /** The folder bundles go to. */
    public static final String FOLDER_PARAMETER = "animalstore.bundles.dir";

    /** The invocation of a parameterized or repeated test, at the end of its unique id: {@code [test-template-invocation:#2]}. */
    private static final Pattern INVOCATION = Pattern.compile("invocation:#(\\d+)]$");

    private final Supplier<AnimalStoreControlClient> controlClient;

    /** @param controlClient the same as {@link AnimalStoreNamespaces}'s, e.g. {@code SANDBOX::getControlClient} */
    public AnimalStoreBundles(Supplier<AnimalStoreControlClient> controlClient) {
        this.controlClient = controlClient;
    }

    @Override
    public void afterTestExecution(ExtensionContext context) throws Exception {
        List<String> namespaces = AnimalStoreNamespaces.created(context);
        if (context.getExecutionException().isEmpty() || namespaces.isEmpty()) {
            return;
        }
        Path folder = context.getConfigurationParameter(FOLDER_PARAMETER).map(Path::of).orElseGet(() -> Path.of(System.getProperty("basedir", "."), "target", "surefire-reports"));
        for (String namespace : namespaces) {
            // A test given several namespaces saves each, told apart by its name.
            String name = fileName(context) + (namespaces.size() == 1 ? "" : "." + namespace);
            Path saved = Bundles.save(controlClient.get(), namespace, folder.resolve(name + ".bundle.json"));
            context.publishReportEntry("animal-store bundle", saved.toAbsolutePath().toString());
        }
    }

    /** {@code dev.example.PetsTest.createsAPet}, and {@code [2]} for the second invocation of a parameterized test. */
    static String fileName(ExtensionContext context) {
        String method = context.getRequiredTestMethod().getName();
        Matcher invocation = INVOCATION.matcher(context.getUniqueId());
        return context.getRequiredTestClass().getName() + "." + method + (invocation.find() ? "[" + invocation.group(1) + "]" : "");
    }
}
