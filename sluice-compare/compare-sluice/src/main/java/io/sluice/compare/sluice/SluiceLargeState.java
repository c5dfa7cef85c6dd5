package io.sluice.compare.sluice;

import io.sluice.checkpoint.CompletedCheckpointStats;
import io.sluice.checkpoint.Savepoint;
import io.sluice.cluster.LocalCluster;
import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.LargeStateProcedure;
import io.sluice.compare.LargeStateSystem;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.config.Configuration;
import io.sluice.graph.JobId;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@link Scenario#LARGE_STATE} on Sluice: {@link LargeStateProcedure} on a {@link LocalCluster} of 2 task
 * executors x 2 slots (4 slots: the rescaled job needs them), HA in ZooKeeper (the harness's embedded
 * server, so that a new cluster can take over the job: the job-manager failover step), RocksDB memory per
 * slot {@code plan.memoryPerSlotBytes()}, the job of {@link LargeStateJob}.
 *
 * <p>Threading: harness thread.
 */
final class SluiceLargeState implements ScenarioRunner, LargeStateSystem {
    private final LargeStatePlan plan;
    private LocalCluster cluster;
    private ZooKeeperSetup zooKeeper;
    private String clusterId;
    private KeyedProbe probe;
    private Path checkpointDir;
    private @Nullable JobId current;

    SluiceLargeState(LargeStatePlan plan) {
        this.plan = plan;
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        this.checkpointDir = context.newDir("large-state-checkpoints");
        Path work = context.newDir("large-state");
        describe().forEach(notes::put);
        this.zooKeeper = context.zooKeeper();
        this.clusterId = context.newClusterId("large-state");
        try (KeyedProbe p = KeyedProbe.create()) {
            this.probe = p;
            this.cluster = newCluster();
            try {
                new LargeStateProcedure(plan, this, rows, notes::put, work,
                        line -> context.progress().line(Scenario.LARGE_STATE.id(), "", "%s", line)).run();
            } finally {
                cluster.close();
            }
        }
    }

    /** A cluster on ZooKeeper HA services of its own session; it recovers the jobs an earlier one left. */
    private LocalCluster newCluster() throws Exception {
        return LocalCluster.builder().configuration(clusterConfiguration(plan))
                .haServices(zooKeeper.services(clusterId), true).build();
    }

    /** {@link LocalCluster#close()} suspends the job and keeps its HA data, as a job-manager process exit would. */
    @Override
    public long restartCluster(Duration timeout) throws Exception {
        job();
        cluster.close();
        long started = System.nanoTime();
        cluster = newCluster();
        return started;
    }

    static Configuration clusterConfiguration(LargeStatePlan plan) {
        return new Configuration()
                .setString("cluster.task-executors", "2")
                .setString("cluster.slots-per-task-executor", "2")
                .setString("state.backend.rocksdb.memory.per-slot", (plan.memoryPerSlotBytes() >> 20) + " mb");
    }

    @Override
    public Map<String, String> describe() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("large-state-plan", plan.describe());
        m.put("large-state-setup", "LocalCluster, 1 job manager, 2 task executors x 2 slots, HA in ZooKeeper (embedded"
                + " server); cluster"
                + " configuration " + clusterConfiguration(plan).toMap() + " (every other RocksDB option at Sluice's"
                + " default: write-buffer-ratio 0.5, high-priority-pool-ratio 0.1, compaction.target-file-size 64 mb,"
                + " local-dir java.io.tmpdir); checkpoints (incremental) and savepoints (canonical, full) on local disk");
        m.put("large-state-job", LargeStateJob.DESCRIPTION);
        return m;
    }

    @Override
    public void start(int keyedParallelism, @Nullable String restoreFrom) throws Exception {
        var graph = LargeStateJob.build(plan, keyedParallelism, checkpointDir, probe);
        current = restoreFrom == null ? cluster.submit(graph) : cluster.submit(graph, restoreFrom);
    }

    @Override
    public long processed() {
        return probe.processed();
    }

    @Override
    public List<CheckpointSample> checkpoints() throws Exception {
        JobDetails d = Waits.details(cluster.dispatcher(), job());
        if (d.status().isTerminal()) {
            throw new IllegalStateException("The large-state job ended " + d.status() + ": " + d.failureMessage());
        }
        return d.checkpoints().recent().stream().map(SluiceLargeState::sample).toList();
    }

    private static CheckpointSample sample(CompletedCheckpointStats s) {
        return new CheckpointSample(s.checkpointId(), s.triggerTimestampMillis(), s.durationMillis(), s.stateBytes());
    }

    @Override
    public Path checkpointDir() {
        return checkpointDir;
    }

    @Override
    public long failTaskAndAwaitThrow(Duration timeout) throws Exception {
        long armedAt = System.nanoTime();
        probe.failNextRecordOf(0);
        return probe.awaitThrowAfter(armedAt, timeout);
    }

    @Override
    public long awaitRestoredRecordAfter(long afterNanos, Duration timeout) throws Exception {
        return probe.awaitFirstRecord(afterNanos, KeyedProbe.FirstRecord::restored, timeout,
                "a keyed instance to process a record with restored state").nanos();
    }

    @Override
    public String savepoint(Path parent, boolean stop, Duration timeout) throws Exception {
        DispatcherGateway dispatcher = cluster.dispatcher();
        JobId id = job();
        Savepoint s = dispatcher.triggerSavepoint(id, parent.toString(), stop).get(timeout.toSeconds(), TimeUnit.SECONDS);
        if (stop) {
            dispatcher.requestJobResult(id).get(timeout.toSeconds(), TimeUnit.SECONDS);
            current = null;
        }
        return s.path();
    }

    /** Sluice keeps a cancelled job's checkpoints ({@code checkpoints.retain-on-cancel}, default true). */
    @Override
    public String cancelKeepingLatestCheckpoint(Duration timeout) throws Exception {
        JobId id = job();
        Throughput.cancel(cluster.dispatcher(), id);
        current = null;
        return "latest:" + id;
    }

    @Override
    public void cancel() throws Exception {
        if (current != null) {
            Throughput.cancel(cluster.dispatcher(), current);
            current = null;
        }
    }

    private JobId job() {
        if (current == null) {
            throw new IllegalStateException("No large-state job runs");
        }
        return current;
    }

    @Override
    public void close() {
        // the cluster and probe are closed by run()
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "Sluice large-state (%s)", plan.variant());
    }
}
