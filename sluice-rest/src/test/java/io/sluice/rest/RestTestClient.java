package io.sluice.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/** A small HTTP client for tests: real requests over loopback, JSON answers as trees. */
public final class RestTestClient {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final String base;
    private final String token;

    public RestTestClient(int port, String token) {
        this.base = "http://127.0.0.1:" + port;
        this.token = token;
    }

    public RestTestClient(int port) {
        this(port, null);
    }

    public RestTestClient withToken(String newToken) {
        return new RestTestClient(Integer.parseInt(base.substring(base.lastIndexOf(':') + 1)), newToken);
    }

    /** A status, the headers and the body (as JSON when it parses). */
    public record Answer(int status, String body, JsonNode json, java.net.http.HttpHeaders headers) {
        public String error() {
            return json == null || !json.has("error") ? null : json.get("error").asText();
        }
    }

    public Answer get(String path) {
        return send(request(path).GET().build());
    }

    public Answer post(String path, String jsonBody) {
        return send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(jsonBody)).build());
    }

    public Answer method(String method, String path) {
        return send(request(path).method(method, HttpRequest.BodyPublishers.noBody()).build());
    }

    /** Uploads {@code content} as the multipart field {@code field} with the given file name. */
    public Answer upload(String path, String field, String fileName, byte[] content) {
        String boundary = "sluice-" + UUID.randomUUID();
        byte[] head = ("--" + boundary + "\r\nContent-Disposition: form-data; name=\"" + field + "\"; filename=\""
                + fileName + "\"\r\nContent-Type: application/java-archive\r\n\r\n").getBytes(StandardCharsets.UTF_8);
        byte[] tail = ("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8);
        return send(request(path).header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofByteArrays(List.of(head, content, tail))).build());
    }

    public HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    public Answer send(HttpRequest request) {
        try {
            HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
            JsonNode json = null;
            try {
                json = r.body().isEmpty() ? null : JSON.readTree(r.body());
            } catch (IOException notJson) {
                // left null: the test asserts on it
            }
            return new Answer(r.statusCode(), r.body(), json, r.headers());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String base() {
        return base;
    }
}
