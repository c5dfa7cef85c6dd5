package io.sluice.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Small blocking REST calls of the end-to-end tests, and the questions they ask a cluster. Test code only. */
final class Rest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** A status code, its JSON body, and how long the request took. */
    record Answer(int status, JsonNode body, long nanos) {
    }

    private Rest() {}

    /** {@code GET url+path}, or empty when nothing answers (refused, timed out). */
    static Optional<Answer> get(String url, String path) {
        long start = System.nanoTime();
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(5))
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            return Optional.of(new Answer(r.statusCode(), r.body().isEmpty() ? JSON.nullNode() : JSON.readTree(r.body()),
                    System.nanoTime() - start));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The job's details as {@code url} answers them, or empty when it does not answer 200. */
    static Optional<JsonNode> job(String url, String jobId) {
        return get(url, "/v1/jobs/" + jobId).filter(a -> a.status() == 200).map(Answer::body);
    }

    static Optional<String> jobStatus(String url, String jobId) {
        return job(url, jobId).map(j -> j.path("status").asText());
    }

    /** Whether the job manager at {@code url} says it is the dispatcher leader. */
    static boolean isLeader(String url) {
        return get(url, "/v1/overview").filter(a -> a.status() == 200)
                .map(a -> a.body().path("leader").path("isThisNode").asBoolean()).orElse(false);
    }

    /** The REST URL of the leader among {@code urls}, or null. */
    static String leaderAmong(List<String> urls) {
        return urls.stream().filter(Rest::isLeader).findFirst().orElse(null);
    }

    static int registeredSlots(String url) {
        return get(url, "/v1/overview").filter(a -> a.status() == 200).map(a -> a.body().path("slotsTotal").asInt())
                .orElse(-1);
    }

    static long completedCheckpoints(String url, String jobId) {
        return job(url, jobId).map(j -> j.path("checkpoints").path("completed").asLong()).orElse(-1L);
    }

    /** The checkpoint the job's current (or last) deployment restored from, or -1 when none or no answer. */
    static long restoredCheckpoint(String url, String jobId) {
        return get(url, "/v1/jobs/" + jobId + "/checkpoints").filter(a -> a.status() == 200)
                .map(a -> a.body().path("restoredId")).filter(JsonNode::isNumber).map(JsonNode::asLong).orElse(-1L);
    }

    /** The REST URL of the dispatcher leader as {@code url} names it (from its encoded contender id), if any. */
    static Optional<String> leaderRestUrl(String url) {
        return get(url, "/v1/overview").filter(a -> a.status() == 200)
                .map(a -> a.body().path("leader").path("contenderId").asText(null))
                .filter(id -> id != null && id.contains("?rest="))
                .map(id -> id.substring(id.indexOf("?rest=") + "?rest=".length()));
    }
}
