package dev.animalstore.testcontainers;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import javax.net.ssl.SSLContext;

/** The tests' own client of the Animal Store API: plain java.net.http, with whatever headers a test chooses. */
final class ApiClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private final HttpClient http;

    private final String baseUrl;

    private final Map<String, String> headers;

    /**
     * @param baseUrl e.g. {@code http://localhost:32768/v1}
     * @param headers sent with every request, e.g. a namespace's {@code apiHeaders()}
     */
    ApiClient(String baseUrl, Map<String, String> headers) {
        this(HTTP, baseUrl, headers);
    }

    /** Over HTTPS, trusting what {@code sslContext} trusts. */
    ApiClient(SSLContext sslContext, String baseUrl, Map<String, String> headers) {
        this(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(sslContext).build(), baseUrl, headers);
    }

    private ApiClient(HttpClient http, String baseUrl, Map<String, String> headers) {
        this.http = http;
        this.baseUrl = baseUrl;
        this.headers = headers;
    }

    HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return send(request(path).GET());
    }

    HttpResponse<String> post(String path, String json) throws IOException, InterruptedException {
        return send(request(path).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(baseUrl + path));
        headers.forEach(request::header);
        return request;
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
