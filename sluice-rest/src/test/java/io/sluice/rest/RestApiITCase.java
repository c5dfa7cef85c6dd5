package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every job and cluster endpoint over real HTTP on loopback, against a LocalCluster in this JVM. */
class RestApiITCase {
    @TempDir
    Path dir;
    private LocalCluster cluster;
    private RestServer server;
    private RestTestClient client;
    private ExecutorService io;

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build();
        io = Executors.newCachedThreadPool();
        server = RestServer.builder(RestServerConfig.defaults().withPort(0),
                new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), io, SystemClock.INSTANCE),
                        JarRunner.unsupported())).build().start();
        client = new RestTestClient(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
        cluster.close();
        io.shutdownNow();
    }

    @Test
    void overviewListsTaskExecutorsSlotsLeaderAndJobCounts() throws Exception {
        JobId id = cluster.submit(TestJobs.counting("overview job", 1_000_000, 2_000, dir.resolve("cp").toString(),
                InjectedFailures.none()));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.get("/v1/jobs/" + id).json().get("status").asText().equals("RUNNING"));
        RestTestClient.Answer a = client.get("/v1/overview");
        assertThat(a.status()).isEqualTo(200);
        JsonNode o = a.json();
        assertThat(o.get("version").asText()).isEqualTo("0.1.0-SNAPSHOT");
        assertThat(o.get("leader").get("contenderId").asText()).isEqualTo("jobmanager-0");
        assertThat(o.get("leader").get("isThisNode").asBoolean()).isTrue();
        assertThat(o.get("taskExecutors")).hasSize(2);
        assertThat(o.get("taskExecutors").get(0).get("slots").asInt()).isEqualTo(2);
        assertThat(o.get("slotsTotal").asInt()).isEqualTo(4);
        assertThat(o.get("slotsFree").asInt()).isEqualTo(2);
        assertThat(o.get("taskExecutors").get(0).get("slotsFree").asInt() + o.get("taskExecutors").get(1).get("slotsFree").asInt())
                .isEqualTo(2);
        assertThat(o.get("jobs").get("total").asInt()).isEqualTo(1);
        assertThat(o.get("jobs").get("running").asInt()).isEqualTo(1);
    }

    @Test
    void jobsListAndDetailShowStatusTransitionsAndVertices() throws Exception {
        JobId id = cluster.submit(TestJobs.counting("listed job", 1_000_000, 2_000, dir.resolve("cp").toString(),
                InjectedFailures.none()));
        await().atMost(Duration.ofSeconds(20)).until(() -> client.get("/v1/jobs/" + id).json().get("status").asText().equals("RUNNING"));

        JsonNode list = client.get("/v1/jobs").json();
        assertThat(list.get("jobs")).hasSize(1);
        JsonNode item = list.get("jobs").get(0);
        assertThat(item.get("id").asText()).isEqualTo(id.value());
        assertThat(item.get("name").asText()).isEqualTo("listed job");
        assertThat(item.get("status").asText()).isEqualTo("RUNNING");
        assertThat(item.get("startTimeMillis").asLong()).isPositive();
        assertThat(item.get("lastTransitionMillis").asLong()).isGreaterThanOrEqualTo(item.get("startTimeMillis").asLong());
        assertThat(client.get("/v1/jobs?status=running").json().get("jobs")).hasSize(1);
        assertThat(client.get("/v1/jobs?status=FINISHED").json().get("jobs")).isEmpty();

        JsonNode d = client.get("/v1/jobs/" + id).json();
        assertThat(d.get("id").asText()).isEqualTo(id.value());
        assertThat(d.get("transitions").findValuesAsText("status")).containsSubsequence("INITIALIZING", "CREATED", "RUNNING");
        assertThat(d.get("vertices")).isNotEmpty();
        assertThat(d.get("vertices").get(0).get("parallelism").asInt()).isEqualTo(2);
        assertThat(d.get("restarts").get("count").asInt()).isZero();
        assertThat(d.get("failure").isNull()).isTrue();
        assertThat(d.get("checkpoints").has("completed")).isTrue();
    }

    @Test
    void afterATaskFailureDetailCheckpointsAndExceptionsShowTheCauseTheRestartAndTheRestoredCheckpoint() throws Exception {
        InjectedFailures failures = InjectedFailures.at(java.util.List.of(4_000L));
        try {
            JobId id = cluster.submit(TestJobs.counting("failing once", 10_000_000, 2_000, dir.resolve("cp").toString(),
                    failures));
            String path = "/v1/jobs/" + id;
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JsonNode d = client.get(path).json();
                return d.get("status").asText().equals("RUNNING") && d.get("restarts").get("count").asInt() == 1
                        && client.get(path + "/checkpoints").json().get("history").size() >= 2;
            });
            JsonNode d = client.get(path).json();
            JsonNode restart = d.get("restarts").get("recent").get(0);
            assertThat(restart.get("cause").asText()).contains("Injected failure at record 4000");
            assertThat(d.get("failure").get("message").asText()).isEqualTo(restart.get("cause").asText());
            assertThat(d.get("transitions").findValuesAsText("status")).containsSubsequence("RUNNING", "RESTARTING", "RUNNING");
            assertThat(d.get("vertices")).allSatisfy(v -> assertThat(v.get("subtasks")).hasSize(v.get("parallelism").asInt()));

            JsonNode exceptions = client.get(path + "/exceptions").json().get("exceptions");
            assertThat(exceptions).hasSize(1);
            assertThat(exceptions.get(0).get("message").asText()).isEqualTo(restart.get("cause").asText());
            assertThat(exceptions.get(0).get("restarted").asBoolean()).isTrue();
            assertThat(exceptions.get(0).get("timestampMillis").asLong()).isEqualTo(restart.get("timestampMillis").asLong());

            JsonNode cp = client.get(path + "/checkpoints").json();
            JsonNode newest = cp.get("history").get(0);
            assertThat(newest.get("id").asLong()).isEqualTo(cp.get("latestId").asLong());
            assertThat(newest.get("inline").asBoolean()).as("4 keys of counts are far below the inline threshold").isTrue();
            assertThat(newest.get("durationMillis").asDouble()).isPositive();
            assertThat(cp.get("restoredId").isNull()).as("the restart restored from a checkpoint taken before record 4000")
                    .isFalse();
            long restored = cp.get("restoredId").asLong();
            assertThat(restored).as("no newer than the latest").isLessThanOrEqualTo(cp.get("latestId").asLong());
            for (JsonNode e : cp.get("history")) {
                assertThat(e.get("restored").asBoolean()).isEqualTo(e.get("id").asLong() == restored);
            }
        } finally {
            failures.release();
        }
    }

    @Test
    void unknownAndMalformedJobIdsAreAnswered404And400WithAJsonError() {
        RestTestClient.Answer unknown = client.get("/v1/jobs/" + JobId.generate());
        assertThat(unknown.status()).isEqualTo(404);
        assertThat(unknown.error()).contains("No job").contains("GET /v1/jobs");
        assertThat(unknown.json().get("status").asInt()).isEqualTo(404);

        RestTestClient.Answer malformed = client.get("/v1/jobs/not-a-job");
        assertThat(malformed.status()).isEqualTo(400);
        assertThat(malformed.error()).contains("32 lowercase hex digits");

        RestTestClient.Answer wrongMethod = client.method("DELETE", "/v1/jobs");
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.error()).as(wrongMethod.body()).contains("DELETE");

        RestTestClient.Answer noSuchPath = client.get("/v1/nothing");
        assertThat(noSuchPath.status()).isEqualTo(404);
        assertThat(noSuchPath.error()).contains("openapi.json");
    }
}
