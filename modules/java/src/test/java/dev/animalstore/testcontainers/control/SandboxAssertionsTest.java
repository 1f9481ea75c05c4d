package dev.animalstore.testcontainers.control;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import dev.animalstore.testcontainers.control.invoker.ApiClient;
import dev.animalstore.testcontainers.control.model.CoverageReport;
import dev.animalstore.testcontainers.control.model.VerifyResult;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** What each assertion says when it fails, from answers as the sandbox gives them, read as the client reads them: no Docker needed. */
class SandboxAssertionsTest {

    private static final String REPORT = """
        {"namespace": "checkout",
         "operations": [
           {"operationId": "listPets", "method": "GET", "path": "/v1/pets", "responses": [{"label": "200", "exercised": true}],
            "complete": true, "message": "listPets (GET /v1/pets), namespace checkout: every reachable documented response exercised"},
           {"operationId": "createPet", "method": "POST", "path": "/v1/pets", "responses": [
             {"label": "201", "exercised": true}, {"label": "400 invalid_body", "exercised": false},
             {"label": "400 malformed_json", "reachable": false, "exercised": false}, {"label": "401", "exercised": false}],
            "complete": false, "message": "createPet (POST /v1/pets), namespace checkout: never exercised 400 invalid_body, 401"}],
         "complete": false,
         "message": "createPet (POST /v1/pets), namespace checkout: never exercised 400 invalid_body, 401",
         "deprecatedCalls": [{"operationId": "getPet", "method": "GET", "path": "/v1/pets/{petId}", "calls": 2,
           "sunset": "2030-12-05T00:00:00.000Z", "replacement": "/v1/pets"}]}
        """;

    static Stream<Arguments> failures() {
        return Stream.of(
            // The sandbox words the outcome (test/control/coverage.test.ts): the assertion raises it as it is.
            Arguments.of((ThrowingCallable) () -> SandboxAssertions.assertAllResponsesExercised(report(REPORT)),
                "createPet (POST /v1/pets), namespace checkout: never exercised 400 invalid_body, 401"),
            Arguments.of((ThrowingCallable) () -> SandboxAssertions.assertAllResponsesExercised(report(REPORT), "listPets", "createPet"),
                "createPet (POST /v1/pets), namespace checkout: never exercised 400 invalid_body, 401"),
            Arguments.of((ThrowingCallable) () -> SandboxAssertions.assertNoDeprecatedCalls(report(REPORT.replace("\"checkout\"", "null"))),
                "deprecated operations called (every namespace):\n- getPet (GET /v1/pets/{petId}): 2 calls, sunset 2030-12-05, use /v1/pets instead"),
            Arguments.of((ThrowingCallable) () -> SandboxAssertions.assertPassed(verifyResult("{\"namespace\": \"checkout\", \"passed\": false, \"message\": \"failed:\\n- createPet: expected exactly 1 call\"}")),
                "verification (namespace checkout) failed:\n- createPet: expected exactly 1 call")
        );
    }

    @ParameterizedTest
    @MethodSource("failures")
    void aFailedAssertionSaysWhatIsMissing(ThrowingCallable assertion, String message) {
        assertThatThrownBy(assertion).isInstanceOf(AssertionError.class).hasMessage(message);
    }

    @Test
    void aSatisfiedAssertionPasses() {
        assertThatCode(() -> SandboxAssertions.assertAllResponsesExercised(report(REPORT), "listPets")).doesNotThrowAnyException();
        assertThatCode(() -> SandboxAssertions.assertPassed(verifyResult("{\"passed\": true}"))).doesNotThrowAnyException();
        assertThatThrownBy(() -> SandboxAssertions.assertAllResponsesExercised(report(REPORT), "nope"))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage("the API has no operation nope; it has listPets, createPet");
    }

    private static CoverageReport report(String json) {
        return read(json, CoverageReport.class);
    }

    private static VerifyResult verifyResult(String json) {
        return read(json, VerifyResult.class);
    }

    private static <T> T read(String json, Class<T> type) {
        try {
            return ApiClient.createDefaultObjectMapper().readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(e);
        }
    }
}
