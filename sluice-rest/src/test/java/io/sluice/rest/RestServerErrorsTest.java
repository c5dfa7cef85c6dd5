package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.protocol.JobSummary;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.rest.model.JarInfo;
import io.sluice.rest.server.RestServer;
import io.sluice.rpc.Acknowledge;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the server answers a backend that fails or never answers: always a JSON error, never a stack
 * trace or a hung request, and it keeps serving. A stub backend, no cluster.
 */
class RestServerErrorsTest {
    private RestServer server;

    /** Overview never answers; listing fails unexpectedly; details fail with a conflict; the rest is unused. */
    private static final class StubBackend implements RestBackend {
        @Override
        public CompletableFuture<ClusterOverview> overview() {
            return new CompletableFuture<>();
        }

        @Override
        public CompletableFuture<List<JobSummary>> listJobs() {
            return CompletableFuture.failedFuture(new NullPointerException("a bug somewhere"));
        }

        @Override
        public CompletableFuture<JobDetails> jobDetails(JobId jobId) {
            return CompletableFuture.failedFuture(new IllegalStateException("Job " + jobId + " is still being recovered"));
        }

        @Override
        public CompletableFuture<Acknowledge> cancelJob(JobId jobId) {
            throw new UnsupportedOperationException("a backend that throws instead of failing its future");
        }

        @Override
        public CompletableFuture<JarInfo> uploadJar(String originalFileName, InputStream content, long maxBytes) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }

        @Override
        public CompletableFuture<List<JarInfo>> listJars() {
            return CompletableFuture.completedFuture(List.of());
        }

        @Override
        public CompletableFuture<JobId> runJar(String jarId, RunRequest request) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException());
        }
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void noAnswerIs503FailuresAreJsonErrorsAndTheServerKeepsServing() {
        server = RestServer.builder(RestServerConfig.defaults().withPort(0), new StubBackend())
                .answerTimeout(Duration.ofMillis(200)).build().start();
        RestTestClient client = new RestTestClient(server.port());

        RestTestClient.Answer silent = client.get("/v1/overview");
        assertThat(silent.status()).isEqualTo(503);
        assertThat(silent.error()).contains("did not answer within 200 ms");

        RestTestClient.Answer bug = client.get("/v1/jobs");
        assertThat(bug.status()).isEqualTo(500);
        assertThat(bug.error()).contains("Internal error").contains("NullPointerException").contains("cluster log")
                .doesNotContain("\tat ");

        RestTestClient.Answer conflict = client.get("/v1/jobs/" + JobId.generate());
        assertThat(conflict.status()).isEqualTo(409);
        assertThat(conflict.error()).contains("still being recovered");

        RestTestClient.Answer thrown = client.post("/v1/jobs/" + JobId.generate() + "/cancel", "");
        assertThat(thrown.status()).isEqualTo(500);
        assertThat(thrown.json().get("status").asInt()).isEqualTo(500);

        assertThat(client.get("/v1/jars").status()).isEqualTo(200);
    }
}
