package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.SandboxAssertions;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/** The README's coverage and trace snippets, run; the assertions' messages are SandboxAssertionsTest's. */
@DockerTest
class CoverageAndVerifyTest {

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withInMemory();

    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void assertionsPassWhenSatisfied(NamespaceControl namespace) throws Exception {
        ApiClient api = new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders());
        assertThat(api.get("/pets").statusCode()).isEqualTo(200);
        assertThat(api.get("/pets/1").statusCode()).isEqualTo(200);
        assertThat(api.get("/pets/987654").statusCode()).isEqualTo(404);
        Map<String, String> wrongKey = Map.of("Authorization", "Bearer wrong-key", NamespaceControl.NAMESPACE_HEADER, namespace.name());
        assertThat(new ApiClient(SANDBOX.getBaseUrl(), wrongKey).get("/pets/1").statusCode()).isEqualTo(401);

        // README coverage snippet begins
        namespace.assertAllResponsesExercised("getPet"); // every operation when none is named
        namespace.assertVerifiedStrictly(Map.of("operationId", "listPets", "count", 1), Map.of("operationId", "getPet", "min", 3));
        // README coverage snippet ends
        assertThatThrownBy(namespace::assertNoDeprecatedCalls).hasMessageContaining("getPet (GET /v1/pets/{petId}): 3 calls");
    }

    @Test
    void readsOneTraceOfTheNamespace(NamespaceControl namespace) throws Exception {
        // README trace snippet begins
        String traceId = UUID.randomUUID().toString().replace("-", "");
        String parentId = UUID.randomUUID().toString().replace("-", "").substring(16);
        Map<String, String> headers = Map.of(
            "baggage", "sandbox.namespace=" + namespace.name(),
            "traceparent", "00-" + traceId + "-" + parentId + "-01"
        );
        // the test's call to the service under test, with these headers, which the service passes on
        ApiClient service = new ApiClient(SANDBOX.getBaseUrl(), withKey(headers)); // test only
        assertThat(service.post("/pets", "{\"name\":\"Traced\",\"categoryId\":1}").statusCode()).isEqualTo(201); // test only

        assertThat(namespace.countRequests(Map.of("traceId", traceId))).isEqualTo(1);
        JsonNode verified = namespace.verify(Map.of("traceId", traceId), Map.of("strict", true, "expectations", List.of(Map.of("operationId", "createPet", "count", 1))));
        SandboxAssertions.assertPassed(verified);
        JsonNode report = namespace.getCoverage(Map.of("traceId", traceId)); // what this call exercised, whatever else the namespace got
        // README trace snippet ends
        assertThat(report.at("/summary/calls").asInt()).isEqualTo(1);
    }

    /** These headers and the sandbox's API key, as a service under test would send its calls. */
    private static Map<String, String> withKey(Map<String, String> headers) {
        Map<String, String> keyed = new LinkedHashMap<>(headers);
        keyed.put("Authorization", SANDBOX.getControlClient().apiHeaders().get("Authorization"));
        return keyed;
    }
}
