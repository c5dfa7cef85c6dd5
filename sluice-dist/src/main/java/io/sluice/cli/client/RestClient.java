package io.sluice.cli.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.common.ExitCodes;
import io.sluice.config.Durations;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;

/**
 * The REST API of a Sluice cluster as the CLI uses it: JSON over {@link HttpClient}, an optional
 * bearer token, and every failure turned into a {@link ClientException} with the exit code that
 * tells it apart (cluster unreachable, not found, token refused, request refused).
 *
 * <p>A connection that is not established within the {@linkplain Connecting connect timeout} (for
 * {@code https://} the JDK's client counts the TLS handshake in it) is tried again, up to
 * {@link Connecting#attempts()} times, saying so on the command's error stream: nothing of the request
 * was sent, so even a {@code POST} is safe to repeat, and a cluster on an overloaded machine (a cold
 * JVM's first TLS handshake, say) is not reported as unreachable after one slow handshake. A refused
 * connection is not tried again: nobody listens there.
 *
 * <p>Threading: blocking calls on the command's thread; thread-safe.
 */
final class RestClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final URI base;
    private final String token;
    private final HttpClient http;
    private final Connecting connecting;

    /**
     * @param tls the TLS context for an https cluster (trusting its CA), or {@code null} for the JVM's defaults
     * @param connecting how long a connection may take, how often one is tried, and where retries are told
     */
    RestClient(URI base, String token, SSLContext tls, Connecting connecting) {
        this.base = base;
        this.token = token;
        this.connecting = connecting;
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(connecting.timeout());
        if (tls != null) {
            b.sslContext(tls);
        }
        this.http = b.build();
    }

    URI base() {
        return base;
    }

    JsonNode get(String path) throws ClientException {
        return send(request(path).GET().build(), path);
    }

    JsonNode delete(String path) throws ClientException {
        return send(request(path).DELETE().build(), path);
    }

    JsonNode postJson(String path, Object body) throws ClientException {
        return postJson(path, body, REQUEST_TIMEOUT);
    }

    /** {@link #postJson(String, Object)} waiting up to {@code timeout} for the answer (a savepoint). */
    JsonNode postJson(String path, Object body, Duration timeout) throws ClientException {
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new ClientException(ExitCodes.INTERNAL_ERROR, "Could not write the request to " + path + ": " + e, e);
        }
        return send(request(path).timeout(timeout).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(bytes)).build(), path, timeout);
    }

    /** {@code POST /v1/jars}: the jar as the multipart field {@code jarfile}. */
    JsonNode uploadJar(Path jar) throws ClientException {
        String boundary = "sluice-" + UUID.randomUUID();
        String fileName = jar.getFileName().toString().replace("\"", "");
        String head = "--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\"; filename=\"" + fileName
                + "\"\r\nContent-Type: application/java-archive\r\n\r\n";
        String tail = "\r\n--" + boundary + "--\r\n";
        HttpRequest.BodyPublisher body;
        try {
            body = HttpRequest.BodyPublishers.concat(
                    HttpRequest.BodyPublishers.ofString(head, StandardCharsets.UTF_8),
                    HttpRequest.BodyPublishers.ofFile(jar),
                    HttpRequest.BodyPublishers.ofString(tail, StandardCharsets.UTF_8));
        } catch (java.io.FileNotFoundException e) {
            throw new ClientException(ExitCodes.NOT_FOUND, "There is no jar file " + jar.toAbsolutePath()
                    + "; build it first (e.g. mvn package) or check the path");
        }
        return send(request("/v1/jars").header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(body).build(), "/v1/jars");
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private JsonNode send(HttpRequest request, String path) throws ClientException {
        return send(request, path, REQUEST_TIMEOUT);
    }

    private JsonNode send(HttpRequest request, String path, Duration timeout) throws ClientException {
        HttpResponse<byte[]> response;
        try {
            response = sendConnecting(request);
        } catch (HttpConnectTimeoutException e) {
            throw new ClientException(ExitCodes.UNAVAILABLE, "Cannot reach a Sluice cluster at " + base + " (no connection"
                    + " within " + Durations.describe(connecting.timeout()) + " in " + connecting.attempts() + " attempt(s);"
                    + " on a slow network or an overloaded machine raise --connect-timeout). Check that it is running, or"
                    + " point --cluster (or SLUICE_CLUSTER) at a running one.", e);
        } catch (ConnectException e) {
            throw unreachable(e);
        } catch (HttpTimeoutException e) {
            throw new ClientException(ExitCodes.UNAVAILABLE, "The Sluice cluster at " + base + " did not answer " + path
                    + " within " + Durations.describe(timeout) + "; check that it is running and not overloaded");
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(ExitCodes.INTERNAL_ERROR, "Interrupted while waiting for " + base.resolve(path));
        }
        JsonNode json = parse(response.body());
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return json;
        }
        String error = json != null && json.hasNonNull("error") ? json.get("error").asText()
                : "HTTP " + status + " from " + base.resolve(path);
        throw switch (status) {
            case 401, 403 -> new ClientException(ExitCodes.NO_PERMISSION, error
                    + " (the cluster requires its rest.auth.token: pass --token or --token-file)");
            case 404 -> new ClientException(ExitCodes.NOT_FOUND, error);
            case 503 -> new ClientException(ExitCodes.UNAVAILABLE, error);
            default -> status < 500 ? new ClientException(ExitCodes.REFUSED, error)
                    : new ClientException(ExitCodes.INTERNAL_ERROR, "The cluster failed to answer " + path + ": " + error);
        };
    }

    /** Sends {@code request}, trying a connection that timed out again up to {@link Connecting#attempts()} times. */
    private HttpResponse<byte[]> sendConnecting(HttpRequest request) throws IOException, InterruptedException {
        for (int attempt = 1; ; attempt++) {
            try {
                return http.send(request, HttpResponse.BodyHandlers.ofByteArray());
            } catch (HttpConnectTimeoutException e) {
                if (attempt >= connecting.attempts()) {
                    throw e;
                }
                connecting.notices().accept("No connection to " + base + " within "
                        + Durations.describe(connecting.timeout()) + " (attempt " + attempt + " of "
                        + connecting.attempts() + "); trying again");
            }
        }
    }

    private ClientException unreachable(IOException e) {
        if (e instanceof SSLHandshakeException) {
            return new ClientException(ExitCodes.UNAVAILABLE, "The Sluice cluster at " + base + " presented a"
                    + " certificate this client does not trust (" + e.getMessage() + "). If a private CA signed it,"
                    + " pass that CA's PEM file with --ca-file (or SLUICE_CA_FILE)", e);
        }
        if (e instanceof SSLException) {
            return new ClientException(ExitCodes.UNAVAILABLE, "TLS with the Sluice cluster at " + base + " failed ("
                    + e.getMessage() + "); does it serve HTTPS (rest.tls.enabled)? If not, use an http:// address", e);
        }
        String reason = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        if (e instanceof ConnectException && e.getMessage() == null) {
            reason = "connection refused";
        }
        return new ClientException(ExitCodes.UNAVAILABLE, "Cannot reach a Sluice cluster at " + base + " (" + reason
                + "). Start one with 'sluice cluster', or point --cluster (or SLUICE_CLUSTER) at a running one.", e);
    }

    private static JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    static ObjectMapper json() {
        return JSON;
    }
}
