package io.sluice.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.JobId;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.metrics.MetricsRoutes;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an operator sees of a job that can never get going, over HTTP against a real
 * {@link LocalCluster}: a job whose user code throws on every record, and one whose state cannot be
 * read back once it restarts. The job list and the job detail carry the crash loop ("the same error
 * N times since T") and the stale checkpoints, both answers match the OpenAPI document, and
 * {@code /metrics} has the gauges.
 */
class CrashLoopOverRestITCase {
    /** Makes {@link FailOnceAfterRestore} throw once; one JVM, so a static switch reaches every copy. */
    private static final AtomicBoolean FAIL_ONCE = new AtomicBoolean();

    @TempDir
    Path dir;
    private PrometheusMeterRegistry registry;
    private LocalCluster cluster;
    private RestServer server;
    private ExecutorService io;
    private RestTestClient client;

    @BeforeEach
    void start() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        cluster = LocalCluster.builder().meterRegistry(registry).build();
        io = Executors.newCachedThreadPool();
        server = RestServer.builder(RestServerConfig.defaults().withPort(0),
                        new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), io, SystemClock.INSTANCE),
                                JarRunner.unsupported()))
                .meterRegistry(registry)
                .addRoutes(new MetricsRoutes(registry))
                .build().start();
        client = new RestTestClient(server.port());
    }

    @AfterEach
    void stop() {
        server.close();
        cluster.close();
        io.shutdownNow();
        FAIL_ONCE.set(false);
    }

    @Test
    void aJobWhoseCodeAlwaysThrowsShowsItsCrashLoopAndStaleCheckpointsInTheListTheDetailAndMetrics() throws Exception {
        StreamExecutionEnvironment env = environment();
        env.fromSource(SequenceSource.unbounded(0).withRate(1_000), "numbers")
                .map(new AlwaysThrows()).name("parse")
                .addSink(new DiscardingSink<>(), "results");
        String id = cluster.submit(env.buildJobGraph("always throws")).value();

        JsonNode item = await().atMost(Duration.ofSeconds(60)).until(() -> listItem(id),
                i -> i.path("crashLoop").path("count").asInt() >= 3 && !i.path("checkpointsStale").isNull());
        JsonNode loop = item.get("crashLoop");
        assertThat(loop.get("kind").asText()).isEqualTo("PROCESSING");
        assertThat(loop.get("restoreNeverSucceeds").asBoolean()).isFalse();
        assertThat(loop.get("restoreCheckpointId").isNull()).isTrue();
        assertThat(loop.get("cause").asText()).startsWith("java.lang.IllegalStateException: cannot reach the lookup service");
        assertThat(loop.get("origin").asText()).startsWith("vertex '").contains("parse").contains("AlwaysThrows.open");
        assertThat(loop.get("summary").asText()).startsWith("crash loop: the same error ")
                .contains(" times since ").contains("cannot reach the lookup service");
        assertThat(loop.get("sinceMillis").asLong()).isPositive().isLessThanOrEqualTo(loop.get("lastMillis").asLong());
        assertThat(loop.get("advice").asText()).contains("--restore-from latest:" + id);
        JsonNode stale = item.get("checkpointsStale");
        assertThat(stale.get("thresholdMillis").asLong()).isEqualTo(1_000);
        assertThat(stale.get("summary").asText()).startsWith("no checkpoint since ");
        new OpenApiSchemas().assertAnswerMatches("GET", "/v1/jobs", 200, client.get("/v1/jobs").json());

        JsonNode detail = client.get("/v1/jobs/" + id).json();
        new OpenApiSchemas().assertAnswerMatches("GET", "/v1/jobs/{jobId}", 200, detail);
        assertThat(detail.get("crashLoop").get("count").asInt()).isGreaterThanOrEqualTo(3);
        assertThat(detail.get("checkpointsStale").get("summary").asText()).startsWith("no checkpoint since ");

        String metrics = await().atMost(Duration.ofSeconds(30)).until(() -> client.get("/metrics").body(),
                m -> gauge(m, "sluice_job_crash_loop", id) >= 3);
        assertThat(gauge(metrics, "sluice_job_crash_loop_since_seconds", id))
                .isEqualTo(loop.get("sinceMillis").asLong() / 1000.0, org.assertj.core.data.Offset.offset(0.001));
        assertThat(gauge(metrics, "sluice_job_crash_loop_restore_never_succeeds", id)).isZero();
        assertThat(gauge(metrics, "sluice_job_checkpoints_stale", id)).isEqualTo(1.0);
        assertThat(gauge(metrics, "sluice_job_checkpoint_age_seconds", id)).isGreaterThan(1.0);
    }

    @Test
    void aJobThatThrowsOnlyOnRestoreIsARestoreThatCanNeverSucceedAndKeepsItsCheckpoints() throws Exception {
        StreamExecutionEnvironment env = environment();
        env.fromSource(SequenceSource.unbounded(0).withRate(2_000), "numbers")
                .keyBy(v -> v % 4)
                .map(new FailOnceAfterRestore()).name("count")
                .addSink(new DiscardingSink<>(), "results");
        JobId job = cluster.submit(env.buildJobGraph("throws on restore"));
        String id = job.value();
        String detail = "/v1/jobs/" + id;

        await().atMost(Duration.ofSeconds(60)).until(() -> client.get(detail + "/checkpoints").json()
                .get("completed").asLong() >= 2);
        FAIL_ONCE.set(true); // one failure; every restore after it fails reading the state back

        // The job master records the third failure's crash loop and then leaves RUNNING in one step of its
        // main thread, but a list item can be built between the two (seen under load): wait for both.
        JsonNode item = await().atMost(Duration.ofSeconds(60)).until(() -> listItem(id),
                i -> i.path("crashLoop").path("restoreNeverSucceeds").asBoolean()
                        && "RESTARTING".equals(i.path("status").asText()));
        JsonNode loop = item.get("crashLoop");
        assertThat(loop.get("kind").asText()).isEqualTo("RESTORE_NEVER_SUCCEEDS");
        assertThat(loop.get("count").asInt()).isEqualTo(3);
        long checkpoint = loop.get("restoreCheckpointId").asLong();
        assertThat(checkpoint).isPositive();
        assertThat(loop.get("cause").asText()).isEqualTo("java.lang.IllegalStateException: " + UnreadableLong.MESSAGE);
        assertThat(loop.get("summary").asText()).contains("restore from checkpoint " + checkpoint + " can never succeed");
        assertThat(loop.get("advice").asText()).contains("Cancel the job and run a fixed jar with --restore-from latest:" + id);
        assertThat(item.get("status").asText()).as("waits for the slow retry").isEqualTo("RESTARTING");
        new OpenApiSchemas().assertAnswerMatches("GET", "/v1/jobs", 200, client.get("/v1/jobs").json());
        assertThat(client.get(detail).json().get("crashLoop").get("kind").asText()).isEqualTo("RESTORE_NEVER_SUCCEEDS");
        assertThat(client.get(detail + "/checkpoints").json().get("latestId").asLong())
                .as("the checkpoint is still the latest: nothing was discarded").isEqualTo(checkpoint);

        String metrics = client.get("/metrics").body();
        assertThat(gauge(metrics, "sluice_job_crash_loop", id)).isEqualTo(3.0);
        assertThat(gauge(metrics, "sluice_job_crash_loop_restore_never_succeeds", id)).isEqualTo(1.0);
    }

    private StreamExecutionEnvironment environment() {
        return StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString())
                .setCheckpointStaleAfter(Duration.ofSeconds(1))
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(1_000, Duration.ofMillis(100)));
    }

    private JsonNode listItem(String id) {
        for (JsonNode j : client.get("/v1/jobs").json().get("jobs")) {
            if (j.get("id").asText().equals(id)) {
                return j;
            }
        }
        throw new AssertionError("job " + id + " is not listed");
    }

    /** The value of the gauge {@code name} of job {@code id} in a Prometheus scrape, or -1 when absent. */
    private static double gauge(String scrape, String name, String id) {
        Matcher m = Pattern.compile("(?m)^" + name + "\\{[^}]*job=\"" + id + "\"[^}]*} (\\S+)$").matcher(scrape);
        return m.find() ? Double.parseDouble(m.group(1)) : -1;
    }

    /**
     * Code that cannot start: it fails in {@code open}, before its task runs, so no checkpoint of the
     * job can ever complete (a checkpoint needs every task running). Failing on the first record
     * instead let a checkpoint slip in now and then between a task's start and that record on a
     * loaded machine, and the "no checkpoint since" mark went away for a second.
     */
    static final class AlwaysThrows implements MapFunction<Long, Long>, RichFunction {
        @Override
        public void open(RuntimeContext context) {
            throw new IllegalStateException("cannot reach the lookup service at lookup:7000");
        }

        @Override
        public Long map(Long value) {
            return value;
        }
    }

    /** Counts per key in state written with {@link UnreadableLong}; throws once when the test asks. */
    static final class FailOnceAfterRestore implements MapFunction<Long, Long>, RichFunction {
        private transient ValueState<Long> count;

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", new UnreadableLong()));
        }

        @Override
        public Long map(Long value) {
            Long c = count.value();
            count.update(c == null ? 1 : c + 1);
            if (FAIL_ONCE.compareAndSet(true, false)) {
                throw new IllegalStateException("failure requested by the test at record " + value);
            }
            return value;
        }
    }

    /** Writes longs and cannot read them back: the state of an incompatible format, as a changed serializer. */
    static final class UnreadableLong implements TypeSerializer<Long> {
        static final String MESSAGE = "state of format 1 cannot be read by this serializer, which reads format 2";

        @Override
        public void serialize(Long value, DataOutputBuffer out) {
            out.writeLong(value);
        }

        @Override
        public Long deserialize(DataInputBuffer in) {
            throw new IllegalStateException(MESSAGE);
        }

        @Override
        public Long copy(Long value) {
            return value;
        }
    }
}
