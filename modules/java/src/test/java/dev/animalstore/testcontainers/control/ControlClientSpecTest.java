package dev.animalstore.testcontainers.control;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The client against the control API's spec, the source of truth. Each operation is a public method named after its
 * operationId: on the namespace handle when it acts on a namespace (its {@code namespace} parameter, or a body that
 * names one), on the client otherwise. A method takes the operation's query parameters as a Map by the spec's names,
 * and an argument for each path parameter and for the body.
 */
class ControlClientSpecTest {

    @Test
    void everyOperationAndParameterOfTheSpecHasAClientMethod() throws IOException {
        JsonNode spec = new ObjectMapper(new YAMLFactory()).readTree(Path.of("../../spec/admin.openapi.yaml").toFile());
        List<String> operations = new ArrayList<>();
        List<String> missing = new ArrayList<>();
        spec.get("paths").properties().forEach(path -> path.getValue().properties().stream().filter(entry -> entry.getValue().has("operationId")).forEach(entry -> {
            JsonNode operation = entry.getValue();
            List<JsonNode> parameters = operation.path("parameters").valueStream().map(parameter -> resolve(spec, parameter)).toList();
            boolean namespaced = parameters.stream().anyMatch(parameter -> parameter.get("name").asText().equals("namespace"))
                || resolve(spec, operation.at("/requestBody/content/application~1json/schema")).path("properties").has("namespace");
            boolean query = parameters.stream().anyMatch(parameter -> parameter.get("in").asText().equals("query") && !parameter.get("name").asText().equals("namespace"));
            long arguments = parameters.stream().filter(parameter -> parameter.get("in").asText().equals("path")).count() + (operation.has("requestBody") ? 1 : 0);
            String id = operation.get("operationId").asText();
            Class<?> owner = namespaced ? NamespaceControl.class : AnimalStoreControlClient.class;
            operations.add(id);
            boolean found = Arrays
                .stream(owner.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers()) && method.getName().equals(id))
                .anyMatch(method -> (!query || takesAMap(method)) && Arrays.stream(method.getParameterTypes()).filter(type -> type != Map.class).count() >= arguments);
            if (!found) {
                missing.add(owner.getSimpleName() + "." + id + ": " + (query ? "a Map of query parameters and " : "") + arguments + " other arguments");
            }
        }));
        assertThat(operations).as("operations read from the spec").hasSizeGreaterThan(10);
        assertThat(missing).as("operations or parameters of the spec the client lacks").isEmpty();
    }

    private static JsonNode resolve(JsonNode spec, JsonNode node) {
        return node.has("$ref") ? spec.at(node.get("$ref").asText().substring(1)) : node;
    }

    private static boolean takesAMap(Method method) {
        return Arrays.asList(method.getParameterTypes()).contains(Map.class);
    }
}
