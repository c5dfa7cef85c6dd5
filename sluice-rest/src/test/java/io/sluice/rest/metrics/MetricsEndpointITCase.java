package io.sluice.rest.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.rest.server.RestServer;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.RestTestClient;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.util.SystemClock;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} over HTTP while a job runs, fails once and restarts: per-task, per-job,
 * storage and REST meters with sane values, checkpoint counters matching the job's checkpoint
 * stats, and every Sluice metric family listed in {@code docs/metrics.md}.
 */
class MetricsEndpointITCase {
    private static final String TOKEN = "metrics-test-token";
    /** The project's docs folder, from the module's directory (where the tests run). */
    static final Path METRICS_DOC = Path.of("..", "docs", "metrics.md");

    @TempDir
    Path dir;
    private PrometheusMeterRegistry registry;
    private LocalCluster cluster;
    private RestServer server;
    private ExecutorService io;
    private RestTestClient client;
    private InjectedFailures failures;

    @BeforeEach
    void start() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        cluster = LocalCluster.builder().meterRegistry(registry).build();
        io = Executors.newCachedThreadPool();
        server = RestServer.builder(RestServerConfig.defaults().withPort(0).withAuthToken(TOKEN),
                        new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), io, SystemClock.INSTANCE),
                                JarRunner.unsupported()))
                .meterRegistry(registry)
                .addRoutes(new MetricsRoutes(registry))
                .build().start();
        client = new RestTestClient(server.port(), TOKEN);
    }

    @AfterEach
    void stop() {
        server.close();
        cluster.close();
        io.shutdownNow();
        if (failures != null) {
            failures.release();
        }
    }

    private PrometheusText scrape() {
        RestTestClient.Answer a = client.get("/metrics");
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        assertThat(a.headers().firstValue("Content-Type")).hasValueSatisfying(ct -> assertThat(ct).startsWith("text/plain"));
        return PrometheusText.parse(a.body());
    }

    private JsonNode json(String path) {
        RestTestClient.Answer a = client.get(path);
        assertThat(a.status()).as(a.body()).isEqualTo(200);
        return a.json();
    }

    /** From record 2000 on, every tenth record is a second behind the others in event time: its window has fired. */
    @Test
    void droppedLateRecordsOfWindowsAreCountedInMetricsAndInTheJobsDetails() throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
        env.fromSource(SequenceSource.unbounded(0).withRate(2_000), "numbers")
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Long>forBoundedOutOfOrderness(
                        Duration.ZERO).withTimestampAssigner((i, previous) -> i % 10 == 0 && i >= 2_000 ? i - 1_000 : i)
                        .withEmitInterval(Duration.ofMillis(5)))
                .keyBy(i -> i % 2)
                .window(WindowAssigner.tumblingEventTime(Duration.ofMillis(100)))
                .reduce(Long::sum)
                .addSink(new DiscardingSink<>(), "sink");
        String id = cluster.submit(env.buildJobGraph("late records")).value();
        String detail = "/v1/jobs/" + id;

        await().atMost(Duration.ofSeconds(30)).until(() -> scrape().sum("sluice_task_late_records_dropped_total", "job", id) >= 5);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            long dropped = 0;
            for (JsonNode v : json(detail).get("vertices")) {
                dropped += v.get("lateRecordsDropped").asLong();
            }
            return dropped >= 5;
        });
        // Only the window's vertex drops records; the source's counts none.
        JsonNode vertices = json(detail).get("vertices");
        assertThat(vertices.get(0).get("lateRecordsDropped").asLong()).isZero();
        assertThat(scrape().find("sluice_task_late_records_dropped_total", "job", id)).hasSize(vertices.size());
        assertThat(Files.readString(METRICS_DOC)).contains("`sluice_task_late_records_dropped_total`");
    }

    @Test
    void aRunningJobsMetricsOverHttpAreCompleteSaneAndDocumented() throws Exception {
        failures = InjectedFailures.at(List.of(1_500L));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ofMillis(100)));
        KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(2_000), 8, failures, new DiscardingSink<>());
        JobId job = cluster.submit(env.buildJobGraph("metrics over http"));
        String id = job.value();
        String detail = "/v1/jobs/" + id;

        await().atMost(Duration.ofSeconds(30)).until(() -> json(detail).get("restarts").get("count").asInt() == 1
                && json(detail).get("status").asText().equals("RUNNING")
                && json(detail + "/checkpoints").get("completed").asLong() >= 2);
        int vertices = json(detail).get("vertices").size();

        // Per task: one series per subtask of each vertex, counting up.
        PrometheusText first = scrape();
        assertThat(first.find("sluice_task_records_in_total", "job", id)).hasSize(2 * vertices)
                .allSatisfy(s -> assertThat(s.labels()).containsKeys("vertex", "vertex_id", "subtask", "job_name"));
        double out = first.sum("sluice_task_records_out_total", "job", id);
        await().atMost(Duration.ofSeconds(10)).until(() -> scrape().sum("sluice_task_records_out_total", "job", id) > out);
        assertThat(first.sum("sluice_task_records_in_total", "job", id)).isPositive();
        assertThat(first.find("sluice_task_backpressure_ratio", "job", id)).hasSize(2 * vertices)
                .allSatisfy(s -> assertThat(s.value()).isBetween(0.0, 1.0));
        assertThat(first.find("sluice_task_backpressure_time_seconds_total", "job", id)).hasSize(2 * vertices)
                .allSatisfy(s -> assertThat(s.value()).isGreaterThanOrEqualTo(0.0));

        // Per job: checkpoint counters match the job's checkpoint stats. Both move on while the job runs, so the
        // scrape lies between one answer and a later one that has caught up with it (answers may be 100 ms old).
        JsonNode before = json(detail + "/checkpoints");
        PrometheusText now = scrape();
        List<Double> completed = List.of(now.sum("sluice_job_checkpoints_completed_total", "job", id),
                now.sum("sluice_job_checkpoint_duration_seconds_count", "job", id),
                now.sum("sluice_job_checkpoint_size_bytes_count", "job", id));
        double failed = now.sum("sluice_job_checkpoints_failed_total", "job", id);
        double atLeast = before.get("completed").asDouble();
        assertThat(completed).allSatisfy(n -> assertThat(n).isGreaterThanOrEqualTo(atLeast).isPositive());
        assertThat(failed).isGreaterThanOrEqualTo(before.get("failed").asDouble());
        double most = completed.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        await().atMost(Duration.ofSeconds(10)).until(() -> json(detail + "/checkpoints").get("completed").asDouble() >= most
                && json(detail + "/checkpoints").get("failed").asDouble() >= failed);
        assertThat(now.sum("sluice_job_restarts_total", "job", id)).isEqualTo(1.0);
        assertThat(now.sum("sluice_job_status_time_seconds_total", "job", id, "status", "RUNNING")).isPositive();
        assertThat(now.sum("sluice_job_status_time_seconds_total", "job", id, "status", "RESTARTING")).isPositive();
        assertThat(now.sum("sluice_job_recovery_attempts_total", "job", id)).isEqualTo(1.0);
        assertThat(now.sum("sluice_job_recovery_duration_seconds_count", "job", id)).isEqualTo(1.0);
        assertThat(now.sum("sluice_job_recovery_elapsed_seconds", "job", id)).isZero();

        // Storage: the checkpoints' writes, counted and timed per operation.
        assertThat(now.sum("sluice_storage_requests_total", "operation", "put", "outcome", "success")).isPositive();
        assertThat(now.sum("sluice_storage_latency_seconds_count", "operation", "put")).isPositive();
        assertThat(now.sum("sluice_storage_requests_total", "outcome", "failure")).isZero();

        // REST: the requests above, timed per route template (never the raw path) and status.
        double detailRequests = now.sum("sluice_rest_requests_seconds_count", "route", "/v1/jobs/{jobId}", "status", "200");
        assertThat(detailRequests).isGreaterThanOrEqualTo(1.0);
        json(detail);
        assertThat(client.get("/no/such/../path").status()).isEqualTo(404);
        PrometheusText later = scrape();
        assertThat(later.sum("sluice_rest_requests_seconds_count", "route", "/v1/jobs/{jobId}", "status", "200"))
                .isGreaterThan(detailRequests);
        assertThat(later.find("sluice_rest_requests_seconds_count").stream().map(s -> s.labels().get("route")))
                .doesNotContain("/no/such/../path", "/no/path");

        // The endpoint requires the token when one is set.
        assertThat(client.withToken(null).get("/metrics").status()).isEqualTo(401);

        // Every Sluice metric family is documented.
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "metrics-scrape.txt"), client.get("/metrics").body());
        String doc = Files.readString(METRICS_DOC);
        assertThat(later.families().stream().filter(f -> f.startsWith("sluice_")))
                .isNotEmpty()
                .allSatisfy(family -> assertThat(doc).as("docs/metrics.md lists %s", family).contains("`" + family + "`"));

        // The ended job's meters are removed.
        client.post(detail + "/cancel", "");
        await().atMost(Duration.ofSeconds(20)).until(() -> json(detail).get("status").asText().equals("CANCELED"));
        await().atMost(Duration.ofSeconds(10)).until(() -> scrape().samples().stream()
                .noneMatch(s -> id.equals(s.labels().get("job"))));
    }
}
