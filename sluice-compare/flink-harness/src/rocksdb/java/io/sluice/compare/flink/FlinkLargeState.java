package io.sluice.compare.flink;

import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.LargeStateProcedure;
import io.sluice.compare.LargeStateSystem;
import io.sluice.compare.Results;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;

/**
 * {@link io.sluice.compare.Scenario#LARGE_STATE} on Flink 1.20 / 2.x: {@link LargeStateProcedure} on a
 * MiniCluster of 1 task manager x 4 slots (the rescaled job needs 4) with
 * {@link #clusterConfiguration} and ZooKeeper HA (an {@link EmbeddedZooKeeper}; {@link FlinkCluster} keeps the
 * HA data when it closes, so that a new MiniCluster recovers the job: the job-manager failover step), and the job of {@link LargeStateJob} with {@link #jobConfiguration}:
 * EmbeddedRocksDBStateBackend (flink-statebackend-rocksdb of this version) with incremental checkpoints,
 * tuned as the Flink documentation's advice for large state goes (each setting is in the result header).
 *
 * <p>Thread rules: harness thread.
 */
public final class FlinkLargeState implements LargeStateScenario, LargeStateSystem {
    private LargeStatePlan plan;
    private FlinkCluster cluster;
    private Configuration clusterConfiguration;
    private Path checkpointDir;
    private JobID current;
    private long restoreEpoch = Long.MAX_VALUE;

    @Override
    public void run(LargeStatePlan plan, Results results, Consumer<String> log) throws Exception {
        this.plan = plan;
        Path work = Files.createTempDirectory("flink-compare-large-state");
        this.checkpointDir = Files.createDirectories(work.resolve("checkpoints"));
        try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(Files.createDirectories(work.resolve("zookeeper")).toFile())) {
            describe().forEach(results::header);
            this.clusterConfiguration = FlinkHarness.withZooKeeperHa(clusterConfiguration(plan, work), zk.quorum(),
                    work.resolve("ha").toUri().toString(), "large-state");
            this.cluster = FlinkCluster.start(clusterConfiguration, 1, 4);
            try {
                new LargeStateProcedure(plan, this, results, results::header, work, log).run();
            } finally {
                cluster.close();
            }
        } finally {
            deleteQuietly(work);
        }
    }

    /**
     * The cluster's settings: {@link FlinkHarness#plainConfiguration()} (REST on a free port) with managed
     * memory of {@code 4 × plan.memoryPerSlotBytes()} (RocksDB takes each slot's share, as Sluice's per-slot
     * budget), local recovery, and the RocksDB tuning below.
     */
    static Configuration clusterConfiguration(LargeStatePlan plan, Path work) {
        Configuration c = FlinkHarness.plainConfiguration();
        c.setString("taskmanager.memory.managed.size", (4 * plan.memoryPerSlotBytes() >> 20) + "m");
        c.setString("state.backend.rocksdb.memory.managed", "true");
        c.setString("state.backend.rocksdb.memory.write-buffer-ratio", "0.5");
        c.setString("state.backend.rocksdb.memory.high-prio-pool-ratio", "0.1");
        c.setString("state.backend.rocksdb.predefined-options", "FLASH_SSD_OPTIMIZED");
        c.setString("state.backend.rocksdb.thread.num", "2");
        // Reads of keys a table file does not hold skip it (every update reads first; the load phase reads
        // keys that do not exist yet): off by default in Flink, a standard tuning for large state.
        c.setString("state.backend.rocksdb.use-bloom-filter", "true");
        c.setString("state.backend.rocksdb.bloom-filter.bits-per-key", "10");
        c.setString("state.backend.rocksdb.bloom-filter.block-based-mode", "false");
        c.setString("state.backend.rocksdb.block.blocksize", "16kb");
        c.setString("state.backend.rocksdb.checkpoint.transfer.thread.num", "4");
        c.setString("state.backend.rocksdb.use-ingest-db-restore-mode", "true");
        c.setString("state.backend.rocksdb.rescaling.use-delete-files-in-range", "true");
        c.setString("state.backend.rocksdb.timer-service.factory", "ROCKSDB");
        c.setString("execution.state-recovery.from-local", "true");
        // Buffer debloating (taskmanager.network.memory.buffer-debloat.enabled) was tried and left off: in one 4 GB run
        // each it made Flink 2.3.0's checkpoints longer and its steady phase slower (docs/benchmarks.md).
        c.setString("state.backend.rocksdb.localdir", work.resolve("rocksdb").toString());
        c.setString("taskmanager.state.local.root-dirs", work.resolve("local-recovery").toString());
        return c;
    }

    /** The job's settings: RocksDB, incremental checkpoints to local disk, restarts at once, object reuse. */
    Configuration jobConfiguration() {
        Configuration c = new Configuration();
        c.setString("state.backend.type", "rocksdb");
        c.setString("execution.checkpointing.incremental", "true");
        c.setString("execution.checkpointing.interval", plan.checkpointInterval().toMillis() + "ms");
        c.setString("execution.checkpointing.timeout", "10min");
        c.setString("execution.checkpointing.dir", checkpointDir.toUri().toString());
        c.setString("state.checkpoints.dir", checkpointDir.toUri().toString());
        c.setString("execution.checkpointing.tolerable-failed-checkpoints", Integer.toString(Integer.MAX_VALUE));
        c.setString("restart-strategy.type", "fixed-delay");
        c.setString("restart-strategy.fixed-delay.attempts", Integer.toString(Integer.MAX_VALUE));
        c.setString("restart-strategy.fixed-delay.delay", "0ms");
        c.setString("pipeline.object-reuse", "true");
        c.setString("execution.checkpointing.externalized-checkpoint-retention", "RETAIN_ON_CANCELLATION");
        return c;
    }

    @Override
    public Map<String, String> describe() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("large-state-plan", plan.describe());
        m.put("large-state-setup", "Flink MiniCluster, 1 task manager x 4 slots, ZooKeeper HA (embedded server);"
                + " cluster configuration "
                + clusterConfiguration(plan, Path.of("<tmp>")).toMap() + "; job configuration "
                + jobConfiguration().toMap() + "; savepoints in the CANONICAL format (like Sluice's)");
        m.put("large-state-job", LargeStateJob.DESCRIPTION);
        return m;
    }

    @Override
    public void start(int keyedParallelism, String restoreFrom) throws Exception {
        if (restoreFrom != null) {
            restoreEpoch = Recorder.nextEpoch();
        }
        JobID id = cluster.submit(LargeStateJob.build(plan, keyedParallelism, jobConfiguration(), restoreFrom));
        current = id;
        FlinkCluster.await("job " + id + " to run", Duration.ofMinutes(5), () -> {
            JobStatus status = status(id);
            if (status != null && status.isGloballyTerminalState()) {
                current = null;
                throw new IllegalStateException("The large-state job ended " + status + " at its start: "
                        + failureOf(id));
            }
            return status == JobStatus.RUNNING;
        });
    }

    private JobStatus status(JobID id) {
        try {
            return cluster.miniCluster().getJobStatus(id).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            return null;
        }
    }

    private String failureOf(JobID id) {
        try {
            var info = cluster.executionGraph(id).get(10, TimeUnit.SECONDS).getFailureInfo();
            return info == null ? "no failure recorded" : info.getExceptionAsString();
        } catch (Exception e) {
            return "its failure could not be read: " + e;
        }
    }

    @Override
    public long processed() {
        return Recorder.processed();
    }

    @Override
    public List<CheckpointSample> checkpoints() throws Exception {
        List<CheckpointSample> out = new ArrayList<>();
        var graph = cluster.executionGraph(job()).get(30, TimeUnit.SECONDS);
        if (graph.getState().isGloballyTerminalState()) {
            JobID ended = job();
            current = null;
            throw new IllegalStateException("The large-state job ended " + graph.getState() + ": " + failureOf(ended));
        }
        for (AbstractCheckpointStats c : graph.getCheckpointStatsSnapshot().getHistory().getCheckpoints()) {
            if (c.getStatus() == CheckpointStatsStatus.COMPLETED && !c.getProperties().isSavepoint()) {
                out.add(new CheckpointSample(c.getCheckpointId(), c.getTriggerTimestamp(), c.getEndToEndDuration(),
                        c.getStateSize()));
            }
        }
        return out;
    }

    @Override
    public Path checkpointDir() {
        return checkpointDir;
    }

    @Override
    public long failTaskAndAwaitThrow(Duration timeout) throws Exception {
        long before = Recorder.failedAt();
        restoreEpoch = Recorder.nextEpoch();
        Recorder.failNextRecord();
        FlinkCluster.await("the injected failure", timeout, () -> Recorder.failedAt() != before);
        return Recorder.failedAt();
    }

    @Override
    public long awaitRestoredRecordAfter(long afterNanos, Duration timeout) throws Exception {
        long epoch = restoreEpoch;
        FlinkCluster.await("a record processed with restored state", timeout, () -> Recorder.isRestored(epoch));
        return Recorder.restoredAt();
    }

    /** Closing the MiniCluster keeps the HA data ({@link RetainingHaServices}); the new one recovers the job. */
    @Override
    public long restartCluster(Duration timeout) throws Exception {
        job();
        cluster.close();
        restoreEpoch = Recorder.nextEpoch();
        long started = System.nanoTime();
        cluster = FlinkCluster.start(clusterConfiguration, 1, 4);
        return started;
    }

    @Override
    public String savepoint(Path parent, boolean stop, Duration timeout) throws Exception {
        String dir = parent.toUri().toString();
        JobID id = job();
        if (stop) {
            String path = cluster.miniCluster().stopWithSavepoint(id, dir, false, SavepointFormatType.CANONICAL)
                    .get(timeout.toSeconds(), TimeUnit.SECONDS);
            cluster.awaitStatus(id, JobStatus.FINISHED, timeout);
            current = null;
            return path;
        }
        return cluster.miniCluster().triggerSavepoint(id, dir, false, SavepointFormatType.CANONICAL)
                .get(timeout.toSeconds(), TimeUnit.SECONDS);
    }

    /** The job keeps its checkpoints on cancel ({@code externalized-checkpoint-retention: RETAIN_ON_CANCELLATION}). */
    @Override
    public String cancelKeepingLatestCheckpoint(Duration timeout) throws Exception {
        JobID id = job();
        String latest = null;
        long latestId = -1;
        var history = cluster.executionGraph(id).get(30, TimeUnit.SECONDS).getCheckpointStatsSnapshot().getHistory();
        cluster.cancel(id);
        current = null;
        for (AbstractCheckpointStats c : history.getCheckpoints()) {
            if (c.getStatus() == CheckpointStatsStatus.COMPLETED && !c.getProperties().isSavepoint()
                    && c.getCheckpointId() > latestId
                    && c instanceof org.apache.flink.runtime.checkpoint.CompletedCheckpointStats done) {
                latestId = c.getCheckpointId();
                latest = done.getExternalPath();
            }
        }
        if (latest == null) {
            throw new IllegalStateException("Job " + id + " had no completed checkpoint to rescale from");
        }
        return latest;
    }

    @Override
    public void cancel() throws Exception {
        if (current != null) {
            cluster.cancel(current);
            current = null;
        }
    }

    private JobID job() {
        if (current == null) {
            throw new IllegalStateException("No large-state job runs");
        }
        return current;
    }

    @Override
    public void close() {
        // the cluster is closed by run()
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
    }
}
