package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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

    /**
     * Seven jobs (five bounded ones that finish, two that keep running): a walk with {@code limit=3}
     * following {@code next} sees each exactly once, newest first, with the total on every page; the
     * filters by status list, part of the name and mark count exactly.
     */
    @Test
    void jobsListPagesThroughEveryJobOnceFollowingNextAndFiltersByStatusNameAndMark() throws Exception {
        List<JobId> finishing = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
            env.fromSource(SequenceSource.bounded(0, 9), "numbers")
                    .addSink(new DiscardingSink<>(), "discard");
            // one after another: the cluster's 4 slots hold the two streaming jobs, not seven jobs at once
            JobResult result = cluster.executeAndWait(env.buildJobGraph("batch " + i), Duration.ofSeconds(30));
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
            finishing.add(result.jobId());
        }
        JobId streaming = cluster.submit(TestJobs.counting("Streaming orders", 10_000_000, 100, dir.resolve("cp").toString(),
                InjectedFailures.none()));
        await().atMost(Duration.ofSeconds(30)).until(() -> client.get("/v1/jobs?status=FINISHED").json().get("total").asInt() == 5
                && client.get("/v1/jobs?status=RUNNING").json().get("total").asInt() == 1);
        JobId last = cluster.submit(TestJobs.counting("streaming clicks", 10_000_000, 100, dir.resolve("cp2").toString(),
                InjectedFailures.none()));

        List<String> walked = new ArrayList<>();
        String next = "/v1/jobs?limit=3";
        int pages = 0;
        while (next != null) {
            RestTestClient.Answer a = client.get(next);
            assertThat(a.status()).as(a.body()).isEqualTo(200);
            JsonNode page = a.json();
            assertThat(page.get("jobs").size()).isBetween(1, 3);
            assertThat(page.get("total").asInt()).isEqualTo(7);
            page.get("jobs").forEach(j -> walked.add(j.get("id").asText()));
            next = page.get("next").isNull() ? null : page.get("next").asText();
            assertThat(next == null).isEqualTo(page.get("nextPageToken").isNull());
            pages++;
        }
        assertThat(pages).isEqualTo(3);
        List<String> all = new ArrayList<>();
        finishing.forEach(id -> all.add(id.value()));
        all.add(streaming.value());
        all.add(last.value());
        assertThat(walked).as("every job once").containsExactlyInAnyOrderElementsOf(all);
        assertThat(walked.get(0)).as("newest first").isEqualTo(last.value());
        JsonNode plain = client.get("/v1/jobs").json();
        assertThat(plain.get("jobs").findValuesAsText("id")).as("one page, the same order").isEqualTo(walked);
        assertThat(plain.get("next").isNull()).isTrue();

        assertThat(client.get("/v1/jobs?status=finished,canceled").json().get("total").asInt()).isEqualTo(5);
        assertThat(client.get("/v1/jobs?status=RUNNING&status=CREATED&status=INITIALIZING").json().get("total").asInt())
                .isEqualTo(2);
        JsonNode byName = client.get("/v1/jobs?name=STREAMING%20O").json();
        assertThat(byName.get("jobs").findValuesAsText("id")).containsExactly(streaming.value());
        assertThat(client.get("/v1/jobs?name=batch&status=FINISHED&limit=2").json().get("next").asText())
                .startsWith("/v1/jobs?status=FINISHED&name=batch&limit=2&pageToken=");
        assertThat(client.get("/v1/jobs?mark=crashLoop,checkpointsStale").json().get("total").asInt())
                .as("healthy jobs carry no mark").isZero();
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
