package dev.animalstore.testcontainers.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client against the control API's spec, the source of truth: an operation added to the spec fails this test
 * until the client has a method for it, marked with its operationId.
 */
class ControlClientSpecCoverageTest {

    /** The spec, from the module's folder (where Maven runs the tests). */
    private static final Path ADMIN_SPEC = Path.of("../../spec/admin.openapi.yaml");

    private static final String NAMESPACE_PARAMETER = "#/components/parameters/Namespace";

    private static final Set<String> HTTP_METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options", "trace");

    /** operationId → whether the operation acts on a namespace: the namespace parameter, or a body that names one. */
    private static Map<String, Boolean> specOperations;

    @BeforeAll
    static void readSpec() throws IOException {
        JsonNode spec = new ObjectMapper(new YAMLFactory()).readTree(ADMIN_SPEC.toFile());
        specOperations = new TreeMap<>();
        spec.get("paths").properties().forEach(path ->
            path.getValue().properties().stream().filter(operation -> HTTP_METHODS.contains(operation.getKey())).forEach(operation -> {
                JsonNode parameters = operation.getValue().path("parameters");
                boolean namespaced = parameters.findValuesAsText("$ref").contains(NAMESPACE_PARAMETER) || namesANamespaceInItsBody(spec, operation.getValue());
                specOperations.put(operation.getValue().get("operationId").asText(), namespaced);
            })
        );
        assertThat(specOperations).as("operations read from " + ADMIN_SPEC).hasSizeGreaterThan(10);
    }

    @Test
    void everyOperationOfTheSpecHasAClientMethod() {
        assertThat(operationsOf(AnimalStoreControlClient.class)).containsAll(specOperations.keySet());
    }

    @Test
    void everyClientMethodNamesAnOperationOfTheSpec() {
        assertThat(specOperations.keySet()).containsAll(operationsOf(AnimalStoreControlClient.class));
    }

    @Test
    void namespaceHandlesHaveEveryOperationThatActsOnANamespace() {
        Set<String> namespaced = specOperations.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).collect(Collectors.toSet());
        assertThat(operationsOf(NamespaceControl.class)).as("the calls of a namespace handle").isEqualTo(namespaced);
    }

    /** Whether the operation's JSON body has a {@code namespace} property (createSnapshot's namespace to freeze). */
    private static boolean namesANamespaceInItsBody(JsonNode spec, JsonNode operation) {
        JsonNode schema = operation.path("requestBody").path("content").path("application/json").path("schema");
        String reference = schema.path("$ref").asText("");
        if (reference.startsWith("#/")) {
            schema = spec.at(reference.substring(1));
        }
        return schema.path("properties").has("namespace");
    }

    /** The operationIds of the public methods a class has, inherited ones included. */
    private static Set<String> operationsOf(Class<?> type) {
        return Arrays
            .stream(type.getMethods())
            .filter(method -> Modifier.isPublic(method.getModifiers()))
            .map(method -> method.getAnnotation(ControlOperation.class))
            .filter(annotation -> annotation != null)
            .map(ControlOperation::value)
            .collect(Collectors.toSet());
    }
}
