package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendOptions;
import io.sluice.config.StateBackendType;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.metrics.MetricNames;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which state backend a job's tasks get ({@code state.backend}: the job's choice, else the task
 * executors'), seen from outside: the per-task state gauges (a RocksDB task reports its slot's
 * native memory budget and usage and its files on local disk, a heap task NaN), the local RocksDB
 * directories (there while the job runs, gone after), and a backend that is not on the class path
 * failing the job at once with a message naming it.
 */
class StateBackendSelectionITCase {
    private static final long BUDGET = 24L << 20;

    @TempDir
    Path dir;

    private Configuration clusterConfiguration(StateBackendType backend) {
        return new Configuration()
                .set(StateBackendOptions.BACKEND, backend)
                .setString("state.backend.rocksdb.memory.per-slot", "24 mb")
                .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString());
    }

    /** Starts the counting job (unbounded, slow) and returns its id. */
    private JobId startCounting(LocalCluster cluster, StateBackendType jobsChoice) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString());
        if (jobsChoice != null) {
            env.setStateBackend(jobsChoice);
        }
        KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(5_000), 64, InjectedFailures.none(),
                new DiscardingSink<>());
        return cluster.submit(env.buildJobGraph("backend " + jobsChoice));
    }

    private static List<Double> stateGauge(SimpleMeterRegistry registry, String name, JobId job) {
        return registry.find(name).tag(MetricNames.TAG_JOB, job.value()).gauges().stream().map(Gauge::value).toList();
    }

    private long rocksDbDirectories() throws Exception {
        Path root = dir.resolve("rocksdb");
        if (!Files.isDirectory(root)) {
            return 0;
        }
        try (Stream<Path> children = Files.list(root)) {
            // one per task ("task-<claim>-..."); a task's local checkpoints for incremental uploads are in "<its
            // directory>.snapshots"; beside them the process's claim (".owner-<claim>.lock") and "local-recovery"
            return children.filter(p -> p.getFileName().toString().startsWith("task-") && Files.isDirectory(p)
                    && !p.getFileName().toString().endsWith(".snapshots")).count();
        }
    }

    @Test
    void aJobChoosingRocksDbGetsItOnAHeapClusterAndShowsItsSlotsMemoryInItsMetrics() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LocalCluster cluster = LocalCluster.builder().meterRegistry(registry)
                .configuration(clusterConfiguration(StateBackendType.HEAP)).build()) {
            JobId job = startCounting(cluster, StateBackendType.ROCKSDB);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    stateGauge(registry, MetricNames.TASK_STATE_MEMORY_USAGE, job).stream().filter(v -> v > 0).count() == 2);
            assertThat(stateGauge(registry, MetricNames.TASK_STATE_MEMORY_BUDGET, job))
                    .as("one keyed task per subtask, each with its slot's budget").containsExactly(
                            (double) BUDGET, (double) BUDGET);
            assertThat(stateGauge(registry, MetricNames.TASK_STATE_MEMORY_USAGE, job))
                    .allSatisfy(v -> assertThat(v).isBetween(0.0, (double) BUDGET + (1 << 20)));
            assertThat(rocksDbDirectories()).as("one local RocksDB directory per keyed subtask").isEqualTo(2);
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            JobResult result = cluster.dispatcher().requestJobResult(job).get(30, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
            await().atMost(Duration.ofSeconds(10)).until(() -> rocksDbDirectories() == 0);
            assertThat(stateGauge(registry, MetricNames.TASK_STATE_MEMORY_BUDGET, job))
                    .as("removed with the tasks").isEmpty();
        }
    }

    @Test
    void aJobWithoutAChoiceGetsTheClustersDefaultAndAJobChoosingTheHeapGetsTheHeap() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (LocalCluster cluster = LocalCluster.builder().meterRegistry(registry).slotsPerTaskExecutor(4)
                .configuration(clusterConfiguration(StateBackendType.ROCKSDB)).build()) {
            JobId byDefault = startCounting(cluster, null);
            JobId onHeap = startCounting(cluster, StateBackendType.HEAP);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    stateGauge(registry, MetricNames.TASK_STATE_MEMORY_BUDGET, byDefault).stream()
                            .filter(v -> !v.isNaN()).count() == 2
                            && stateGauge(registry, MetricNames.TASK_STATE_MEMORY_BUDGET, onHeap).size() == 2);
            assertThat(stateGauge(registry, MetricNames.TASK_STATE_MEMORY_BUDGET, byDefault))
                    .containsExactly((double) BUDGET, (double) BUDGET);
            assertThat(stateGauge(registry, MetricNames.TASK_STATE_MEMORY_BUDGET, onHeap))
                    .as("the heap has no native budget").allSatisfy(v -> assertThat(v).isNaN());
            cluster.dispatcher().cancelJob(byDefault).get(10, TimeUnit.SECONDS);
            cluster.dispatcher().cancelJob(onHeap).get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aBackendThatIsNotOnTheClassPathFailsTheJobAtOnceNamingIt() throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
            KeyedCountingJob.build(env, SequenceSource.bounded(0, 100), 4, InjectedFailures.none(), new DiscardingSink<>());
            JobGraph graph = env.buildJobGraph("unknown backend");
            JobId job = cluster.submit(graph.withConfig(graph.config().withStateBackend("tape")));
            JobResult result = cluster.dispatcher().requestJobResult(job).get(30, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FAILED);
            assertThat(result.failureStackTrace()).contains("State backend 'tape' (state.backend) is not on this task"
                    + " executor's class path").contains("heap").contains("rocksdb");
        }
    }
}
