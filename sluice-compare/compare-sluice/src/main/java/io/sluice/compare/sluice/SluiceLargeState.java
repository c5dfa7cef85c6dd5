package io.sluice.compare.sluice;

import io.sluice.checkpoint.CompletedCheckpointStats;
import io.sluice.checkpoint.Savepoint;
import io.sluice.cluster.LocalCluster;
import io.sluice.compare.HarnessArgs;
import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.LargeStateProcedure;
import io.sluice.compare.LargeStateSystem;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.config.Configuration;
import io.sluice.graph.JobId;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.storage.s3.S3ProxyServer;
import java.nio.file.Files;
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
 * slot {@code plan.memoryPerSlotBytes()}, the job of {@link LargeStateJob}. Checkpoints and savepoints on local
 * disk, or with {@link HarnessArgs.Storage#S3} on S3: an S3Proxy server in this JVM that keeps its objects as files
 * ({@link S3ProxyServer#startOnDisk}), reached over HTTP with Sluice's default S3 client settings.
 *
 * <p>Threading: harness thread.
 */
final class SluiceLargeState implements ScenarioRunner, LargeStateSystem {
    private static final String BUCKET = "large-state";

    private final LargeStatePlan plan;
    private final HarnessArgs.Storage storage;
    /** {@code --large-state-set} settings over {@link #clusterConfiguration}'s, in order. */
    private final Map<String, String> settings;
    private LocalCluster cluster;
    private ZooKeeperSetup zooKeeper;
    private String clusterId;
    private KeyedProbe probe;
    /** Where the files of the job's checkpoints are on local disk (the bucket's directory on S3), to measure them. */
    private Path checkpointDir;
    /** The job's checkpoint directory: a local path, or {@code s3://large-state/checkpoints}. */
    private String checkpointLocation;
    /** The directory of the S3 server's bucket, or {@code null} on local disk. */
    private @Nullable Path bucketDir;
    private @Nullable S3ProxyServer s3;
    private @Nullable JobId current;

    SluiceLargeState(LargeStatePlan plan, HarnessArgs.Storage storage, Map<String, String> settings) {
        this.plan = plan;
        this.storage = storage;
        this.settings = new LinkedHashMap<>(settings);
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        if (storage == HarnessArgs.Storage.S3) {
            Path base = context.newDir("large-state-s3");
            this.s3 = S3ProxyServer.startOnDisk(base, BUCKET);
            this.bucketDir = base.resolve(BUCKET);
            this.checkpointDir = Files.createDirectories(bucketDir.resolve("checkpoints"));
            this.checkpointLocation = "s3://" + BUCKET + "/checkpoints";
        } else {
            this.checkpointDir = context.newDir("large-state-checkpoints");
            this.checkpointLocation = checkpointDir.toString();
        }
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
        } finally {
            if (s3 != null) {
                s3.close();
            }
        }
    }

    /** A cluster on ZooKeeper HA services of its own session; it recovers the jobs an earlier one left. */
    private LocalCluster newCluster() throws Exception {
        Configuration configuration = clusterConfiguration(plan, settings);
        if (s3 != null) {
            configuration.setString("s3.endpoint", s3.endpoint())
                    .setString("s3.region", "us-east-1")
                    .setString("s3.path-style-access", "true")
                    .setString("s3.access-key", S3ProxyServer.ACCESS_KEY)
                    .setString("s3.secret-key", S3ProxyServer.SECRET_KEY);
        }
        return LocalCluster.builder().configuration(configuration)
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

    /**
     * The cluster's settings: the harness's own, then {@code settings} ({@code --large-state-set}) over them. A
     * key no option of the cluster knows fails the cluster's start, naming it.
     */
    static Configuration clusterConfiguration(LargeStatePlan plan, Map<String, String> settings) {
        Configuration configuration = defaultClusterConfiguration(plan);
        settings.forEach(configuration::setString);
        return configuration;
    }

    private static Configuration defaultClusterConfiguration(LargeStatePlan plan) {
        return new Configuration()
                .setString("cluster.task-executors", "2")
                .setString("cluster.slots-per-task-executor", "2")
                // The network's defaults: 4 buffers per channel, handed over smaller while backpressured so that
                // about 300 ms of records wait in flight (docs/benchmarks.md, "Buffers sized to the throughput").
                .setString("state.backend.rocksdb.memory.per-slot", (plan.memoryPerSlotBytes() >> 20) + " mb");
    }

    @Override
    public Map<String, String> describe() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("large-state-plan", plan.describe());
        m.put("large-state-setup", "LocalCluster, 1 job manager, 2 task executors x 2 slots, HA in ZooKeeper (embedded"
                + " server); cluster"
                + " configuration " + clusterConfiguration(plan, settings).toMap() + " (every other RocksDB option at Sluice's"
                + " default: write-buffer-ratio 0.5, high-priority-pool-ratio 0.1, compaction.target-file-size 64 mb,"
                + " local-dir java.io.tmpdir); checkpoints (incremental) and savepoints (canonical, full) "
                + (storage == HarnessArgs.Storage.S3 ? "on S3: S3Proxy " + "in this JVM on the filesystem-nio2 provider"
                        + " (objects as files on local disk), over HTTP on 127.0.0.1, every s3.* option at Sluice's"
                        + " default except the endpoint, region, path-style access and static keys" : "on local disk"));
        m.put("large-state-job", LargeStateJob.DESCRIPTION);
        return m;
    }

    @Override
    public void start(int keyedParallelism, @Nullable String restoreFrom) throws Exception {
        var graph = LargeStateJob.build(plan, keyedParallelism, checkpointLocation, probe);
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
        String target = s3 == null ? parent.toString() : "s3://" + BUCKET + "/" + parent.getFileName();
        Savepoint s = dispatcher.triggerSavepoint(id, target, stop).get(timeout.toSeconds(), TimeUnit.SECONDS);
        if (stop) {
            dispatcher.requestJobResult(id).get(timeout.toSeconds(), TimeUnit.SECONDS);
            current = null;
        }
        return s.path();
    }

    /** On S3, the savepoint's directory in the bucket's directory on disk. */
    @Override
    public Path localPathOf(String path) {
        String prefix = "s3://" + BUCKET + "/";
        if (bucketDir != null && path.startsWith(prefix)) {
            return bucketDir.resolve(path.substring(prefix.length()));
        }
        return LargeStateSystem.super.localPathOf(path);
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
