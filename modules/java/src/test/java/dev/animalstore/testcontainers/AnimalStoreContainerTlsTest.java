package dev.animalstore.testcontainers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.animalstore.testcontainers.control.AnimalStoreControlClient;
import dev.animalstore.testcontainers.control.NamespaceControl;
import dev.animalstore.testcontainers.control.api.FaultsApi;
import dev.animalstore.testcontainers.control.api.FaultsApi.APIAddFaultRequest;
import dev.animalstore.testcontainers.control.api.NamespacesApi;
import dev.animalstore.testcontainers.control.invoker.ApiException;
import dev.animalstore.testcontainers.control.model.NewFault;
import dev.animalstore.testcontainers.junit.AnimalStoreNamespaces;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.Map;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.junit.jupiter.Container;

/**
 * A sandbox {@code withTls()}: its health wait, the control client and the tests' own calls go over HTTPS trusting the
 * CA of its start alone, with every check on; the JVM's own trust store does not open it.
 */
@DockerTest
class AnimalStoreContainerTlsTest {

    @Container
    static final AnimalStoreContainer SANDBOX = new AnimalStoreContainer().withTls().withInMemory();

    // Over HTTPS too: each test's namespace is made and deleted through the control client.
    @RegisterExtension
    static final AnimalStoreNamespaces NAMESPACES = new AnimalStoreNamespaces(SANDBOX::getControlClient);

    @Test
    void servesHttpsThatItsCaAloneOpens(NamespaceControl namespace) throws Exception {
        assertThat(SANDBOX.getBaseUrl()).isEqualTo("https://" + SANDBOX.getHost() + ":" + SANDBOX.getMappedPort(4010) + "/v1");
        assertThat(SANDBOX.getTlsCa()).startsWith("-----BEGIN CERTIFICATE-----");
        // The PEM is text, which the generated getTlsCa() reads as JSON: the control API answers it to a plain call.
        ApiClient admin = new ApiClient(SANDBOX.getSslContext(), SANDBOX.getOrigin() + "/__admin", Map.of("Authorization", "Bearer " + SANDBOX.getAdminToken()));
        assertThat(admin.get("/tls/ca").body()).as("the CA the control API answers, over HTTPS").isEqualTo(SANDBOX.getTlsCa());

        namespace.api(FaultsApi.class).addFault(APIAddFaultRequest.newBuilder().newFault(new NewFault().operationId("listPets").status(503).times(1)).build());
        ApiClient api = new ApiClient(SANDBOX.getSslContext(), SANDBOX.getBaseUrl(), namespace.apiHeaders());
        assertThat(api.get("/pets").statusCode()).isEqualTo(503);
        HttpResponse<String> listed = api.get("/pets");
        assertThat(listed.statusCode()).isEqualTo(200);
        assertThat(listed.version()).isEqualTo(HttpClient.Version.HTTP_1_1);
        assertThat(namespace.countRequests("listPets", null)).isEqualTo(2);

        // Verification is on: without the CA, neither the tests' client nor the control client gets through.
        assertThatThrownBy(() -> new ApiClient(SANDBOX.getBaseUrl(), namespace.apiHeaders()).get("/pets")).isInstanceOf(SSLHandshakeException.class);
        AnimalStoreControlClient withoutTheCa = new AnimalStoreControlClient(URI.create(SANDBOX.getOrigin()), SANDBOX.getAdminToken(), SANDBOX.getApiKey());
        assertThatThrownBy(() -> withoutTheCa.api(NamespacesApi.class).listNamespaces()).isInstanceOf(ApiException.class).hasCauseInstanceOf(SSLHandshakeException.class);
    }

    @Test
    void theCertificateNamesTheHostTheTestsReachItBy() throws Exception {
        // 127.0.0.2 reaches the published port as localhost does, but is none of the names the certificate always has.
        AnimalStoreContainer elsewhere = new AnimalStoreContainer() {
            @Override
            public String getHost() {
                return "127.0.0.2";
            }
        };
        try (AnimalStoreContainer sandbox = elsewhere.withTls().withInMemory()) {
            sandbox.start(); // its wait checks the host name too
            assertThat(sandbox.getEnvMap()).containsEntry("TLS_NAMES", "127.0.0.2");
            assertThat(new ApiClient(sandbox.getSslContext(), sandbox.getOrigin(), Map.of()).get("/healthz").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void speaksHttp2ToTheJdkClient() throws Exception {
        // README https snippet begins
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(SANDBOX.getSslContext()).build();
        HttpRequest listPets = HttpRequest.newBuilder(URI.create(SANDBOX.getBaseUrl() + "/pets")) // https://localhost:32768/v1/pets
            .header("Authorization", "Bearer " + SANDBOX.getApiKey())
            .build();
        HttpResponse<String> response = http.send(listPets, BodyHandlers.ofString());
        // README https snippet ends
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.version()).isEqualTo(HttpClient.Version.HTTP_2);
    }
}
