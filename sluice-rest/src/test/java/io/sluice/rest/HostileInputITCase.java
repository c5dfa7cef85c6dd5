package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.rest.jars.JarRunner;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hostile and malformed requests against a token-protected server with a running job: each gets a
 * 4xx with a JSON error that says what was wrong, no file outside the jar directory is read or
 * written, and afterwards the server still serves the running job.
 */
class HostileInputITCase {
    private static final String TOKEN = "s3cr3t-t0ken";
    private static final long MAX_UPLOAD = 64 * 1024;
    private static final long MAX_REQUEST = 4 * 1024;

    @TempDir
    Path dir;
    private RestTestCluster rest;
    private RestTestClient client;
    private JobId running;

    @BeforeEach
    void start() throws Exception {
        LocalCluster cluster = LocalCluster.builder().build();
        JarRunner neverCalled = (file, jar, request) -> CompletableFuture.failedFuture(
                new AssertionError("no hostile request may reach the jar runner"));
        rest = new RestTestCluster(cluster, dir.resolve("jars"),
                RestServerConfig.defaults().withAuthToken(TOKEN).withLimits(MAX_REQUEST, MAX_UPLOAD), neverCalled);
        client = rest.client;
        running = cluster.submit(TestJobs.counting("bystander", 10_000_000, 1_000, dir.resolve("cp").toString(),
                InjectedFailures.none()));
        await().atMost(Duration.ofSeconds(20)).until(() -> "RUNNING".equals(client.get("/v1/jobs/" + running).json()
                .get("status").asText()));
        Files.writeString(dir.resolve("secret.txt"), "do not serve");
    }

    @AfterEach
    void stop() throws Exception {
        assertStillServing();
        try (Stream<Path> files = Files.list(dir.resolve("jars"))) {
            assertThat(files.map(p -> p.getFileName().toString()))
                    .as("only generated jar names in the jar directory").allMatch(n -> n.matches("[0-9a-f]{32}\\.(jar|properties)"));
        } catch (java.nio.file.NoSuchFileException noJarsYet) {
            // nothing was stored
        }
        rest.close();
    }

    private void assertStillServing() {
        RestTestClient.Answer a = client.get("/v1/jobs/" + running);
        assertThat(a.status()).isEqualTo(200);
        assertThat(a.json().get("status").asText()).isEqualTo("RUNNING");
    }

    /** A 4xx with a JSON error body whose status matches and whose message contains {@code words}. */
    private static void assertRefused(RestTestClient.Answer a, int status, String... words) {
        assertThat(a.status()).as(a.body()).isEqualTo(status);
        assertThat(a.json()).as("a JSON body: " + a.body()).isNotNull();
        assertThat(a.json().get("status").asInt()).isEqualTo(status);
        assertThat(a.error()).isNotBlank().doesNotContain("do not serve");
        for (String w : words) {
            assertThat(a.error()).contains(w);
        }
        assertThat(a.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/json"));
    }

    @Test
    void everyProtectedRouteNeedsTheTokenAndAWrongOneIsRefused() {
        RestTestClient anonymous = client.withToken(null);
        RestTestClient wrong = client.withToken("not-the-token");
        for (RestRouter.Route route : rest.server.routes()) {
            String path = route.path().replace("{jobId}", running.value()).replace("{jarId}", "0".repeat(32));
            for (RestTestClient c : List.of(anonymous, wrong)) {
                RestTestClient.Answer a = switch (route.method()) {
                    case "GET" -> c.get(path);
                    case "POST" -> c.post(path, "{}");
                    default -> c.method(route.method(), path); // DELETE
                };
                assertRefused(a, 401, "token");
                assertThat(a.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(h -> assertThat(h).startsWith("Bearer"));
            }
        }
        RestTestClient.Answer basic = client.send(client.withToken(null).request("/v1/jobs")
                .header("Authorization", "Basic dXNlcjpwYXNz").GET().build());
        assertRefused(basic, 401, "not a bearer token");
        assertThat(client.get("/v1/jobs").status()).isEqualTo(200);
    }

    @Test
    void badAndUnknownJobIdsAre400And404OnEveryJobRoute() {
        for (String suffix : List.of("", "/checkpoints", "/exceptions")) {
            assertRefused(client.get("/v1/jobs/" + JobId.generate() + suffix), 404, "No job");
            for (String bad : List.of("abc", "ABCDEF0123456789ABCDEF0123456789", "0".repeat(33), "0".repeat(31) + "g",
                    "%20" + "0".repeat(32), "..%3B")) {
                assertRefused(client.get("/v1/jobs/" + bad + suffix), 400);
            }
        }
        assertRefused(client.post("/v1/jobs/" + JobId.generate() + "/cancel", ""), 404, "No job");
        assertRefused(client.post("/v1/jobs/xyz/cancel", ""), 400, "32 lowercase hex digits");
    }

    @Test
    void pathTraversalInPathsAndQueryParametersIsRefused() {
        List<String> paths = new ArrayList<>();
        for (String attack : List.of("..", "%2e%2e", "%2E%2E", "..%2F..%2Fsecret.txt", "%2e%2e%2f%2e%2e%2fsecret.txt",
                "%2F..%2F..", "..%5C..%5Csecret.txt", "%252e%252e", ".%2e", "%c0%ae%c0%ae")) {
            paths.add("/v1/jobs/" + attack);
            paths.add("/v1/jobs/" + attack + "/checkpoints");
            paths.add("/v1/jobs/" + attack + "/exceptions");
            paths.add("/v1/jars/" + attack + "/run");
            paths.add("/v1/" + attack + "/secret.txt");
        }
        for (String path : paths) {
            RestTestClient.Answer a = path.endsWith("/run") ? client.post(path, "{}") : client.get(path);
            assertThat(a.status()).as(path + " -> " + a.body()).isBetween(400, 499);
            assertThat(a.json()).as(path + " -> " + a.body()).isNotNull();
            assertThat(a.body()).doesNotContain("do not serve");
        }
        for (String query : List.of("?status=../../secret.txt", "?status=%2e%2e%2fsecret.txt", "?file=../../secret.txt",
                "?path=%2e%2e/secret.txt", "?status=RUNNING&file=..")) {
            assertRefused(client.get("/v1/jobs" + query), 400);
        }
        for (String route : List.of("/v1/overview", "/v1/jobs/" + running, "/v1/jobs/" + running + "/checkpoints",
                "/v1/jobs/" + running + "/exceptions", "/v1/jars", "/v1/openapi.json")) {
            assertRefused(client.get(route + "?file=..%2F..%2Fsecret.txt"), 400, "Unknown query parameter 'file'");
        }
        assertRefused(client.post("/v1/jobs/" + running + "/cancel?file=..", ""), 400, "Unknown query parameter");
    }

    /**
     * The paging and filter parameters of GET /v1/jobs: out-of-range and malformed values, forged
     * tokens, repeated and oversized parameters are 400s that name the parameter and what it takes,
     * with the value echoed printable and short; valid extremes still answer.
     */
    @Test
    void jobListParametersOutOfRangeOrForgedAre400NamingWhatIsAccepted() {
        String accepted = "?limit= takes a whole number of jobs per page from 1 to 1000";
        for (String limit : List.of("0", "-1", "1001", "2147483648", "99999999999999999999", "1.5", "1e3", "0x10",
                "%2B5", "%20", "", "ten", "..%2F..%2Fsecret.txt")) {
            assertRefused(client.get("/v1/jobs?limit=" + limit), 400, accepted);
        }
        assertRefused(client.get("/v1/jobs?limit=5&limit=6"), 400, "?limit= is given 2 times");
        for (String token : List.of("abc", "..%2F..%2Fsecret.txt", "1_" + "0".repeat(31), "1_" + "G".repeat(32),
                "%00", "-5_" + "0".repeat(32), "1_" + "0".repeat(32) + "%0A", "%27%3B--")) {
            assertRefused(client.get("/v1/jobs?pageToken=" + token), 400, "?pageToken= takes the nextPageToken of an earlier"
                    + " answer of GET /v1/jobs");
        }
        assertRefused(client.get("/v1/jobs?status=RUNNING,,FAILED"), 400, "?status= has an empty value");
        assertRefused(client.get("/v1/jobs?status=RUNNING%0D%0AX-Injected:%201"), 400, "Unknown job status 'RUNNING??X-Injected: 1'");
        assertRefused(client.get("/v1/jobs?mark=%3Cscript%3E"), 400, "Unknown mark '<script>' in ?mark=; use crashLoop");
        assertRefused(client.get("/v1/jobs?name="), 400, "?name= takes 1 to 200 characters");
        RestTestClient.Answer longName = client.get("/v1/jobs?name=" + "x".repeat(5_000));
        assertRefused(longName, 400, "?name= takes 1 to 200 characters (a part of the job name, any case), not 5000");
        assertThat(longName.body().length()).as("the value is not echoed whole").isLessThan(400);
        assertRefused(client.get("/v1/jobs?limit=" + "9".repeat(3_000)), 400, accepted);

        // Valid extremes answer; a name with URL-special characters is only text.
        assertThat(client.get("/v1/jobs?limit=1&status=running&mark=crashLoop,checkpointsStale").status()).isEqualTo(200);
        RestTestClient.Answer odd = client.get("/v1/jobs?limit=1000&name=%25%2F..%2F%3F%26%3D" + "y".repeat(190));
        assertThat(odd.status()).as(odd.body()).isEqualTo(200);
        assertThat(odd.json().get("total").asInt()).isZero();
        RestTestClient.Answer byName = client.get("/v1/jobs?name=BYSTAND&limit=1");
        assertThat(byName.json().get("jobs")).hasSize(1);
        assertThat(byName.json().get("jobs").get(0).get("id").asText()).isEqualTo(running.value());
        assertThat(byName.json().get("next").isNull()).isTrue();
    }

    @Test
    void wrongMethodsAre405() {
        assertRefused(client.method("DELETE", "/v1/jobs/" + running), 405, "DELETE");
        assertRefused(client.method("PUT", "/v1/jobs"), 405, "PUT");
        assertRefused(client.get("/v1/jobs/" + running + "/cancel"), 405, "GET");
        assertRefused(client.post("/v1/overview", "{}"), 405, "POST");
        assertRefused(client.method("PATCH", "/v1/jars"), 405, "PATCH");
    }

    @Test
    void uploadsThatAreNotJarsOrTooLargeAreRefused() {
        assertRefused(client.upload("/v1/jars", "jarfile", "job.jar", "this is not a zip".getBytes(StandardCharsets.UTF_8)),
                400, "not a jar");
        assertRefused(client.upload("/v1/jars", "jarfile", "empty.jar", new byte[0]), 400, "not a jar");
        assertRefused(client.upload("/v1/jars", "wrongfield", "job.jar", TestJars.jar("a.B", "a.B")), 400, "jarfile");
        assertRefused(client.post("/v1/jars", "{\"not\": \"multipart\"}"), 415, "multipart/form-data");
        assertRefused(client.upload("/v1/jars", "jarfile", "big.jar", new byte[(int) MAX_UPLOAD + 1]), 413, "rest.max-upload-size");

        // Without a declared length (chunked): the multipart limit refuses it while it is read.
        byte[] big = new byte[(int) MAX_UPLOAD * 2];
        String boundary = "b0undary";
        HttpRequest chunked = client.request("/v1/jars")
                .header("Content-Type", "multipart/form-data; boundary=" + boundary)
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.SequenceInputStream(java.util.Collections.enumeration(List.of(
                        new java.io.ByteArrayInputStream(("--" + boundary + "\r\nContent-Disposition: form-data; name=\"jarfile\";"
                                + " filename=\"big.jar\"\r\n\r\n").getBytes(StandardCharsets.UTF_8)),
                        new java.io.ByteArrayInputStream(big),
                        new java.io.ByteArrayInputStream(("\r\n--" + boundary + "--\r\n").getBytes(StandardCharsets.UTF_8)))))))
                .build();
        RestTestClient.Answer a = client.send(chunked);
        assertRefused(a, 413);
        assertThat(a.headers().firstValue("Connection")).as("the unread rest of the body ends the connection").hasValue("close");
        assertRefused(client.post("/v1/jars/" + "0".repeat(32) + "/run", "{}"), 404, "No jar");
        assertRefused(client.post("/v1/jars/not-a-jar-id/run", "{}"), 400, "32 lowercase hex digits");
    }

    @Test
    void malformedRunRequestsAre400AndOversizedBodies413() {
        String jarId = client.upload("/v1/jars", "jarfile", "ok.jar", TestJars.jar("a.B", "a.B")).json().get("id").asText();
        String run = "/v1/jars/" + jarId + "/run";
        assertRefused(client.post(run, "{not json"), 400, "not valid JSON");
        assertRefused(client.post(run, "[1, 2]"), 400, "not valid JSON");
        assertRefused(client.post(run, "{\"unknown\": 1}"), 400, "unknown");
        assertRefused(client.post(run, "{\"parallelism\": 0}"), 400, "parallelism");
        assertRefused(client.post(run, "{\"parallelism\": \"many\"}"), 400, "not valid JSON");
        assertRefused(client.post(run, "{\"entryClass\": \"../../secret\"}"), 400, "entryClass");
        assertRefused(client.post(run, "{\"args\": [\"a\", null]}"), 400, "args");
        assertRefused(client.post(run, "null"), 400, "null");
        assertRefused(client.post(run, "{\"args\": [\"" + "x".repeat((int) MAX_REQUEST) + "\"]}"), 413, "rest.max-request-size");
        HttpRequest chunked = client.request(run).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(
                        ("{\"args\": [\"" + "y".repeat((int) MAX_REQUEST * 2) + "\"]}").getBytes(StandardCharsets.UTF_8))))
                .build();
        assertRefused(client.send(chunked), 413, "rest.max-request-size");
    }

    @Test
    void garbageRequestLinesAndHeadersGetJsonErrors() throws Exception {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", rest.server.port())) {
            s.getOutputStream().write("GET /v1/jobs/%zz HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer s3cr3t-t0ken\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(s.getInputStream().readNBytes(600), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("application/json").contains("\"status\":400");
        }
        HttpRequest hugeHeader = HttpRequest.newBuilder(URI.create(client.base() + "/v1/jobs"))
                .header("Authorization", "Bearer " + TOKEN).header("X-Filler", "z".repeat(64 * 1024)).GET().build();
        RestTestClient.Answer a = client.send(hugeHeader);
        assertThat(a.status()).isEqualTo(431);
        assertThat(a.body()).contains("\"status\":431");
    }
}
