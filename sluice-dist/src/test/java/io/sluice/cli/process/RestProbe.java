package io.sluice.cli.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;

/** Small blocking REST calls of the end-to-end tests (test code only). */
final class RestProbe {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** A status code and its JSON body. */
    record Answer(int status, JsonNode body) {
    }

    private RestProbe() {}

    /** {@code GET url+path}, or empty when nothing answers (refused, timed out). */
    static Optional<Answer> get(String url, String path) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            return Optional.of(new Answer(r.statusCode(), r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body())));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The job's status as {@code url} answers it, or empty when it does not answer 200. */
    static Optional<String> jobStatus(String url, String jobId) {
        return get(url, "/v1/jobs/" + jobId).filter(a -> a.status() == 200).map(a -> a.body().path("status").asText());
    }

    /** The REST URL of the dispatcher leader as {@code url} names it (from its encoded contender id), if any. */
    static Optional<String> leaderRestUrl(String url) {
        return get(url, "/v1/overview").filter(a -> a.status() == 200)
                .map(a -> a.body().path("leader").path("contenderId").asText(null))
                .filter(id -> id != null && id.contains("?rest="))
                .map(id -> id.substring(id.indexOf("?rest=") + "?rest=".length()));
    }
}
