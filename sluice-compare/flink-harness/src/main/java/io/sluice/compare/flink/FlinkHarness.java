package io.sluice.compare.flink;

import io.sluice.compare.CountingCheck;
import io.sluice.compare.HarnessArgs;
import io.sluice.compare.LatencySummary;
import io.sluice.compare.Machine;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Scenario.Metric;
import io.sluice.compare.Stats;
import io.sluice.compare.StatusProbe;
import io.sluice.compare.WindowWorkload;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.api.common.JobID;
import org.apache.flink.api.common.JobStatus;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.fs.FileSystem;
import org.apache.flink.runtime.checkpoint.AbstractCheckpointStats;
import org.apache.flink.runtime.checkpoint.CheckpointStatsSnapshot;
import org.apache.flink.runtime.checkpoint.CheckpointStatsStatus;
import org.apache.flink.runtime.executiongraph.AccessExecutionGraph;
import org.apache.flink.runtime.executiongraph.AccessExecutionVertex;
import org.apache.flink.runtime.util.EnvironmentInformation;

/**
 * Runs the comparison scenarios ({@link Scenario}) on the Apache Flink version on the classpath,
 * with the same job, parameters ({@link Plan}) and result format as Sluice's harness. Flink runs as
 * a MiniCluster in this JVM, with ZooKeeper HA on an embedded ZooKeeper server reached through a
 * latency proxy, and its HA storage and checkpoints on {@code slowfs://} ({@link SlowFileSystem}),
 * a file system plugged in through Flink's file-system factory, whose read latency and stalls the
 * harness controls.
 *
 * <pre>
 * java [the driver's JVM options] -cp … io.sluice.compare.flink.FlinkHarness --mode full|smoke --out flink.tsv
 * </pre>
 */
public final class FlinkHarness {
    private final Plan plan;
    private final Results results;
    private final Path out;
    private final String system;

    private final io.sluice.compare.LargeStatePlan largeState;

    private FlinkHarness(Plan plan, Path out, io.sluice.compare.LargeStatePlan largeState) {
        this.plan = plan;
        this.largeState = largeState;
        this.out = out;
        this.system = "flink-" + EnvironmentInformation.getVersion();
        this.results = new Results(system);
        Machine.record(results, plan);
        results.header("version", EnvironmentInformation.getVersion());
        results.header("setup", "Flink MiniCluster (1 task manager, 2 slots; throughput-2tm: 2 task managers x 1"
                + " slot, each with its own Netty network stack, remote input channels between them),"
                + " HashMapStateBackend, ZooKeeper HA on an"
                + " embedded ZooKeeper from Flink's shaded jar, HA storage and checkpoints on slowfs:// (local disk"
                + " with injected latency/stalls); throughput and checkpoint duration without HA on file://");
        results.header("flink-configuration", plainConfiguration().toMap() + "; in the recovery scenarios also"
                + " high-availability=zookeeper, high-availability.zookeeper.quorum=localhost:<latency proxy>,"
                + " high-availability.storageDir=slowfs://<tmp>/ha, high-availability.cluster-id=<fresh per run>,"
                + " state.checkpoints.num-retained=N; in throughput-2tm also metrics.reporter.sluice-shuffle-bytes"
                + ".factory.class=" + ShuffleBytesReporter.Factory.class.getName() + " (reads the Netty input byte counters)");
        results.header("job", CountingJob.DESCRIPTION + "; checkpoints to slowfs:// (recovery) or file://");
        if (runsOptionalScenarios()) {
            results.header("window-job", WindowJob.DESCRIPTION + "; checkpoints to file://");
        }
    }

    /**
     * Whether this Flink version runs the optional scenarios (the windows, the two task managers and Kafka):
     * 1.20 and later (the issue compares them with Flink 1.20.5 and 2.3.0); 1.13 and 1.14 declare them
     * not run, which keeps the full and the smoke run shorter.
     */
    private static boolean runsOptionalScenarios() {
        String[] v = EnvironmentInformation.getVersion().split("\\.");
        try {
            int major = Integer.parseInt(v[0]);
            int minor = v.length > 1 ? Integer.parseInt(v[1]) : 0;
            return major > 1 || minor >= 20;
        } catch (NumberFormatException e) {
            return true;
        }
    }

    public static void main(String[] args) throws Exception {
        HarnessArgs a = HarnessArgs.parse(args);
        if (a.largeStateStorage() != HarnessArgs.Storage.LOCAL) {
            throw new IllegalArgumentException("The Flink harness runs the large-state scenario on local disk only;"
                    + " --large-state-storage s3 is for the Sluice harness");
        }
        if (!a.largeStateSettings().isEmpty()) {
            throw new IllegalArgumentException("--large-state-set sets Sluice's cluster options and is for the Sluice"
                    + " harness; the Flink harness's large-state settings are in FlinkLargeState");
        }
        FileSystem.initialize(new Configuration(), null);
        int failed = new FlinkHarness(a.plan(), a.out(), a.largeState()).run(a.scenarios());
        System.exit(failed == 0 ? 0 : 1);
    }

    /** Runs the scenarios in order; returns how many failed (their rows are missing). */
    int run(Set<Scenario> scenarios) {
        int failed = 0;
        for (Scenario s : Scenario.values()) {
            if (!scenarios.contains(s)) {
                continue;
            }
            if (s.optional() && !runsOptionalScenarios()) {
                results.notRun(s, "optional scenario, not run on Flink " + EnvironmentInformation.getVersion()
                        + " (the window, two-task-manager, Kafka and large-state scenarios run on Flink 1.20 and"
                        + " later)");
                results.write(out);
                log("%s: not run on this version (optional scenario)", s.id());
                continue;
            }
            long t0 = System.nanoTime();
            log("%s: start", s.id());
            try {
                switch (s) {
                    case STATUS_DURING_STALL -> statusDuringStall();
                    case TASK_FAILOVER -> taskFailover();
                    case JM_FAILOVER -> jmFailover();
                    case THROUGHPUT, THROUGHPUT_2TM -> throughput(s);
                    case CHECKPOINT_DURATION -> checkpointDuration();
                    case WINDOW_TUMBLING -> window(WindowWorkload.TUMBLING);
                    case WINDOW_SESSION -> window(WindowWorkload.SESSION);
                    case KAFKA_EXACTLY_ONCE -> kafka();
                    case LARGE_STATE -> largeState();
                }
            } catch (Exception | AssertionError e) {
                failed++;
                System.err.printf("[%s] scenario %s FAILED: %s%n", system, s.id(), e);
                e.printStackTrace();
            } finally {
                StorageFaults.heal();
                results.write(out);
            }
            log("%s: done in %.1f s", s.id(), (System.nanoTime() - t0) / 1e9);
        }
        return failed;
    }

    // ---------------------------------------------------------------- scenario 1

    private void statusDuringStall() throws Exception {
        int n = plan.statusRetained();
        try (Environment env = new Environment(n)) {
            RunningJob job = env.startJob(n);
            StorageFaults.stall();
            long reads0 = StorageFaults.metadataReads();
            long epoch = Recorder.nextEpoch();
            Recorder.failNextRecord();
            LatencySummary s = probe(() -> job.cluster.status(job.id));
            long reads = StorageFaults.metadataReads() - reads0;
            StorageFaults.release();
            finish(job, epoch, plan.statusTaskFailoverStalled(), s, reads);
        }
        try (Environment env = new Environment(n)) {
            RunningJob first = env.startJob(n);
            first.cluster.close();
            StorageFaults.stall();
            long reads0 = StorageFaults.metadataReads();
            long epoch = Recorder.nextEpoch();
            CompletableFuture<FlinkCluster> second = env.startClusterAsync();
            LatencySummary s = probe(() -> second.thenCompose(c -> c.status(first.id)));
            long reads = StorageFaults.metadataReads() - reads0;
            StorageFaults.release();
            finish(new RunningJob(second.get(120, TimeUnit.SECONDS), first.id), epoch, plan.statusJmRestartStalled(), s,
                    reads);
        }
        try (Environment env = new Environment(n)) {
            RunningJob job = env.startJob(n);
            env.zk.setRoundTripDelay(plan.zkLatency());
            long reads0 = StorageFaults.metadataReads();
            long epoch = Recorder.nextEpoch();
            Recorder.failNextRecord();
            LatencySummary s = probe(() -> job.cluster.status(job.id));
            long reads = StorageFaults.metadataReads() - reads0;
            env.zk.setRoundTripDelay(Duration.ZERO);
            finish(job, epoch, plan.statusZkSlow(), s, reads);
        }
        try (Environment env = new Environment(n); ZnodePinner pinner = new ZnodePinner(env.zk.quorum())) {
            RunningJob job = env.startJob(n);
            int pinned = pinner.pinAllCheckpoints();
            awaitCheckpoints(n + 1, "checkpoints that subsume the pinned ones");
            results.header("pinned-checkpoints", pinned + " checkpoint znodes pinned by a second live session, then "
                    + (n + 1) + " more checkpoints completed (status scenario, extra-checkpoints variant)");
            StorageFaults.setReadLatency(plan.statusStorageLatency());
            long reads0 = StorageFaults.metadataReads();
            long epoch = Recorder.nextEpoch();
            Recorder.failNextRecord();
            LatencySummary s = probe(() -> job.cluster.status(job.id));
            long reads = StorageFaults.metadataReads() - reads0;
            StorageFaults.heal();
            finish(job, epoch, plan.statusExtraCheckpoints(), s, reads);
        }
    }

    private LatencySummary probe(java.util.function.Supplier<CompletableFuture<?>> query) throws InterruptedException {
        StatusProbe probe = new StatusProbe(query, plan.queryPeriod()).start();
        TimeUnit.MILLISECONDS.sleep(plan.statusWindow().toMillis()); // the measured window
        return probe.stop();
    }

    /** Records a status variant, then checks the job recovers once faults are healed, and cancels it. */
    private void finish(RunningJob job, long epoch, String variant, LatencySummary s, long metadataReads)
            throws Exception {
        s.addTo(results, Scenario.STATUS_DURING_STALL, variant);
        results.add(Scenario.STATUS_DURING_STALL, variant, Metric.METADATA_READS, metadataReads);
        log("status-during-stall [%s]: %s; %d metadata reads during the window", variant, s, metadataReads);
        try {
            FlinkCluster.await("state restored after the faults were healed", Duration.ofSeconds(120),
                    () -> Recorder.isRestored(epoch));
        } catch (IllegalStateException e) {
            log("WARNING: %s", e.getMessage());
        }
        job.cluster.cancel(job.id);
        job.cluster.close();
    }

    // ---------------------------------------------------------------- scenario 2

    private void taskFailover() throws Exception {
        for (int n : plan.failoverRetained()) {
            for (Duration d : plan.failoverLatencies()) {
                String variant = Plan.nd(n, d);
                try (Environment env = new Environment(n)) {
                    RunningJob job = env.startJob(n);
                    StorageFaults.setReadLatency(d);
                    List<Double> times = new ArrayList<>();
                    long maxReads = 0;
                    int restored = 0;
                    for (int i = 1; i <= plan.failoverRepeats(); i++) {
                        long reads0 = StorageFaults.metadataReads();
                        long failedBefore = Recorder.failedAt();
                        long epoch = Recorder.nextEpoch();
                        Recorder.failNextRecord();
                        FlinkCluster.await("the injected failure", Duration.ofSeconds(60),
                                () -> Recorder.failedAt() != failedBefore);
                        FlinkCluster.await("state restored after failover " + i, recoveryTimeout(n, d),
                                () -> Recorder.isRestored(epoch));
                        double ms = (Recorder.restoredAt() - Recorder.failedAt()) / 1e6;
                        long reads = StorageFaults.metadataReads() - reads0;
                        times.add(ms);
                        maxReads = Math.max(maxReads, reads);
                        restored++;
                        log("task-failover %s: failover %d/%d: %.1f ms, %d metadata reads", variant, i,
                                plan.failoverRepeats(), ms, reads);
                        awaitCheckpoints(1, "a checkpoint after failover " + i);
                    }
                    StorageFaults.heal();
                    results.add(Scenario.TASK_FAILOVER, variant, Metric.TO_RUNNING_MS, Stats.median(times))
                            .add(Scenario.TASK_FAILOVER, variant, Metric.METADATA_READS, maxReads)
                            .add(Scenario.TASK_FAILOVER, variant, Metric.RESTORED,
                                    restored / (double) plan.failoverRepeats());
                    job.cluster.cancel(job.id);
                    job.cluster.close();
                }
            }
        }
    }

    private static Duration recoveryTimeout(int retained, Duration latency) {
        return Duration.ofSeconds(120).plus(latency.multipliedBy(4L * (retained + 4)));
    }

    // ---------------------------------------------------------------- scenario 3

    private void jmFailover() throws Exception {
        for (int n : plan.jmRetained()) {
            for (Duration d : plan.jmLatencies()) {
                String variant = Plan.nd(n, d);
                List<Double> toRunning = new ArrayList<>();
                List<Double> first = new ArrayList<>();
                List<Double> p99 = new ArrayList<>();
                List<Double> max = new ArrayList<>();
                long maxReads = 0;
                for (int i = 1; i <= plan.jmRepeats(); i++) {
                    try (Environment env = new Environment(n)) {
                        RunningJob job = env.startJob(n);
                        job.cluster.close();
                        StorageFaults.setReadLatency(d);
                        long reads0 = StorageFaults.metadataReads();
                        long epoch = Recorder.nextEpoch();
                        long t0 = System.nanoTime();
                        CompletableFuture<FlinkCluster> second = env.startClusterAsync();
                        // Status is probed from the moment the new job manager is up (start() returned), as a
                        // client could first reach it; the time to restored state counts from before the start.
                        FlinkCluster started = second.get(recoveryTimeout(n, d).toSeconds(), TimeUnit.SECONDS);
                        StatusProbe probe = new StatusProbe(() -> started.status(job.id), plan.queryPeriod()).start();
                        FlinkCluster.await("state restored by the new job manager", recoveryTimeout(n, d),
                                () -> Recorder.isRestored(epoch));
                        double ms = (Recorder.restoredAt() - t0) / 1e6;
                        LatencySummary s = probe.stop();
                        long reads = StorageFaults.metadataReads() - reads0;
                        StorageFaults.heal();
                        toRunning.add(ms);
                        first.add(probe.firstAnswerNanos() / 1e6);
                        p99.add(s.p99Ms());
                        max.add(s.maxMs());
                        maxReads = Math.max(maxReads, reads);
                        log("jm-failover %s: run %d/%d: %.1f ms to restored state, %d metadata reads, status %s",
                                variant, i, plan.jmRepeats(), ms, reads, s);
                        FlinkCluster c2 = second.get(60, TimeUnit.SECONDS);
                        c2.cancel(job.id);
                        c2.close();
                    }
                }
                results.add(Scenario.JM_FAILOVER, variant, Metric.TO_RUNNING_MS, Stats.median(toRunning))
                        .add(Scenario.JM_FAILOVER, variant, Metric.METADATA_READS, maxReads)
                        .add(Scenario.JM_FAILOVER, variant, Metric.FIRST_STATUS_MS, Stats.median(first))
                        .add(Scenario.JM_FAILOVER, variant, Metric.STATUS_P99_MS, Stats.median(p99))
                        .add(Scenario.JM_FAILOVER, variant, Metric.STATUS_MAX_MS, Stats.median(max));
            }
        }
    }

    // ---------------------------------------------------------------- scenarios 4 and 5

    /**
     * {@link Scenario#THROUGHPUT} on one task manager with 2 slots, or {@link Scenario#THROUGHPUT_2TM} on
     * two task managers with one slot each, whose keyed exchange crosses Netty: per run a fresh job,
     * records counted over {@code plan.throughputWindow()} after {@code plan.throughputWarmup()} (on two
     * task managers {@code plan.twoTaskManagerWindow()} and {@code plan.twoTaskManagerWarmup()}), median
     * of {@code plan.throughputRuns()}. On two task managers it also checks that the job's subtasks ran
     * on both and that bytes crossed the network ({@link ShuffleBytesReporter}), reports both, and runs
     * the bounded {@link CountingCheck}, whose per-key counts must be exact.
     */
    private void throughput(Scenario scenario) throws Exception {
        boolean twoTaskManagers = scenario == Scenario.THROUGHPUT_2TM;
        Path dir = Files.createTempDirectory("flink-compare-" + scenario.id());
        String variant = twoTaskManagers ? plan.twoTaskManagerVariant() : String.format(Locale.ROOT,
                "parallelism 2, checkpoints every %d ms", plan.checkpointInterval().toMillis());
        List<Double> rates = new ArrayList<>();
        List<Double> perCpu = new ArrayList<>();
        List<Double> bytesPerRecord = new ArrayList<>();
        int taskManagers = 0;
        Configuration configuration = plainConfiguration();
        try (FlinkCluster cluster = twoTaskManagers
                ? FlinkCluster.start(ShuffleBytesReporter.register(configuration), 2, 1)
                : FlinkCluster.start(configuration)) {
            for (int run = 1; run <= plan.throughputRuns(); run++) {
                JobID id = cluster.submit(CountingJob.build(plan.throughputKeys(), 0,
                        plan.checkpointInterval().toMillis(), dir.resolve("run" + run).toUri().toString()));
                cluster.awaitStatus(id, JobStatus.RUNNING, Duration.ofSeconds(60));
                long base = Recorder.processed();
                FlinkCluster.await("records to flow", Duration.ofSeconds(60), () -> Recorder.processed() > base);
                TimeUnit.MILLISECONDS.sleep((twoTaskManagers ? plan.twoTaskManagerWarmup() : plan.throughputWarmup())
                        .toMillis()); // warm-up
                long remote0 = ShuffleBytesReporter.remoteBytes();
                long local0 = ShuffleBytesReporter.localBytes();
                long c0 = Recorder.processed();
                long t0 = System.nanoTime();
                long cpu0 = processCpuNanos();
                TimeUnit.MILLISECONDS.sleep((twoTaskManagers ? plan.twoTaskManagerWindow() : plan.throughputWindow())
                        .toMillis()); // the measured window
                long c1 = Recorder.processed();
                long t1 = System.nanoTime();
                long cpu1 = processCpuNanos();
                long remote = ShuffleBytesReporter.remoteBytes() - remote0;
                long local = ShuffleBytesReporter.localBytes() - local0;
                double rate = (c1 - c0) * 1e9 / (t1 - t0);
                rates.add(rate);
                perCpu.add((c1 - c0) * 1e9 / Math.max(1, cpu1 - cpu0));
                String network = "";
                if (twoTaskManagers) {
                    int deployedOn = taskManagersOf(cluster, id);
                    taskManagers = Math.max(taskManagers, deployedOn);
                    bytesPerRecord.add(remote / (double) Math.max(1, c1 - c0));
                    network = String.format(Locale.ROOT, "; subtasks on %d task managers, input bytes over Netty %,d"
                            + " (%.2f per record), from the same task manager %,d", deployedOn,
                            remote, remote / (double) Math.max(1, c1 - c0), local);
                }
                log("%s run %d/%d: %.2f M records/s (%.2f M per CPU-second of the JVM)%s", scenario.id(), run,
                        plan.throughputRuns(), rate / 1e6, (c1 - c0) * 1e3 / Math.max(1, cpu1 - cpu0), network);
                cluster.cancel(id);
            }
            results.add(scenario, variant, Metric.RECORDS_PER_S, Stats.median(rates))
                    .add(scenario, variant, Metric.RECORDS_PER_CPU_S, Stats.median(perCpu))
                    .add(scenario, variant, Metric.RUNS, rates.size());
            if (twoTaskManagers) {
                double median = Stats.median(bytesPerRecord);
                if (taskManagers != 2 || !(median > 0)) {
                    throw new IllegalStateException("The two-task-manager job ran on " + taskManagers + " task"
                            + " manager(s) with " + median + " input bytes per record over Netty: its keyed exchange"
                            + " did not cross the network, so this is not a two-task-manager run");
                }
                results.add(scenario, variant, Metric.TASK_MANAGERS, taskManagers)
                        .add(scenario, variant, Metric.TCP_BYTES_PER_RECORD, median);
                countingCheck(cluster, scenario, dir.resolve("check").toUri().toString());
            }
        } finally {
            deleteQuietly(dir);
        }
    }

    /** Distinct task managers the subtasks of job {@code id} are deployed to. */
    private static int taskManagersOf(FlinkCluster cluster, JobID id) throws Exception {
        Set<Object> locations = new HashSet<>();
        for (AccessExecutionVertex v : cluster.executionGraph(id).get(30, TimeUnit.SECONDS).getAllExecutionVertices()) {
            if (v.getCurrentAssignedResourceLocation() != null) {
                locations.add(v.getCurrentAssignedResourceLocation().getResourceID());
            }
        }
        return locations.size();
    }

    /** The bounded run of {@link Plan#countingCheck()} on {@code cluster}; fails unless every key's count is exact. */
    private void countingCheck(FlinkCluster cluster, Scenario scenario, String checkpointDir) throws Exception {
        CountingCheck expected = plan.countingCheck();
        String sinkId = UUID.randomUUID().toString();
        CheckCounters.open(sinkId);
        CheckCounters.Counted counted;
        try {
            JobID id = cluster.submit(CountingJob.build(plan.throughputKeys(), 0, plan.checkpointInterval().toMillis(),
                    checkpointDir, expected.records(), sinkId));
            cluster.awaitStatus(id, JobStatus.FINISHED, Duration.ofMinutes(10));
            counted = CheckCounters.read(sinkId);
        } finally {
            CheckCounters.close(sinkId);
        }
        log("%s %s: %d counts (expected %d), sum %d (expected %d), largest %d (expected %d)", scenario.id(),
                plan.countingCheckVariant(), counted.received(), expected.records(), counted.sum(),
                expected.expectedSum(), counted.max(), expected.perKey());
        expected.problem(counted.received(), counted.sum(), counted.max()).ifPresent(problem -> {
            throw new IllegalStateException(problem);
        });
        results.add(scenario, plan.countingCheckVariant(), Metric.CHECK_RECORDS, counted.received())
                .add(scenario, plan.countingCheckVariant(), Metric.CHECK_RECORDS_EXPECTED, expected.records());
    }

    private void checkpointDuration() throws Exception {
        Path dir = Files.createTempDirectory("flink-compare-checkpoints");
        String variant = "keys=" + plan.checkpointKeys();
        try (FlinkCluster cluster = FlinkCluster.start(plainConfiguration())) {
            JobID id = cluster.submit(CountingJob.build(plan.checkpointKeys(), 0, plan.checkpointInterval().toMillis(),
                    dir.toUri().toString()));
            cluster.awaitStatus(id, JobStatus.RUNNING, Duration.ofSeconds(60));
            long base = Recorder.processed();
            FlinkCluster.await("every key to have state", Duration.ofSeconds(120),
                    () -> Recorder.processed() - base >= 2L * plan.checkpointKeys());
            long startedAfter = latestCompletedCheckpoint(cluster, id);
            List<Double> durations = new ArrayList<>();
            List<Double> sizes = new ArrayList<>();
            Set<Long> seen = new HashSet<>();
            long deadline = System.nanoTime() + plan.checkpointInterval().multipliedBy(plan.checkpointsMeasured() * 4L
                    + 20).toNanos() + Duration.ofSeconds(60).toNanos();
            while (durations.size() < plan.checkpointsMeasured()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Only " + durations.size() + " of " + plan.checkpointsMeasured()
                            + " checkpoints completed in time");
                }
                for (AbstractCheckpointStats c : stats(cluster, id).getHistory().getCheckpoints()) {
                    if (c.getStatus() == CheckpointStatsStatus.COMPLETED && c.getCheckpointId() > startedAfter
                            && seen.add(c.getCheckpointId()) && durations.size() < plan.checkpointsMeasured()) {
                        durations.add((double) c.getEndToEndDuration());
                        sizes.add((double) c.getStateSize());
                        log("checkpoint %d: %d ms, %d bytes", c.getCheckpointId(), c.getEndToEndDuration(),
                                c.getStateSize());
                    }
                }
                TimeUnit.MILLISECONDS.sleep(50);
            }
            cluster.cancel(id);
            double[] sorted = durations.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            results.add(Scenario.CHECKPOINT_DURATION, variant, Metric.DURATION_P50_MS, Stats.median(sorted))
                    .add(Scenario.CHECKPOINT_DURATION, variant, Metric.DURATION_MAX_MS, sorted[sorted.length - 1])
                    .add(Scenario.CHECKPOINT_DURATION, variant, Metric.STATE_BYTES, Stats.median(sizes))
                    .add(Scenario.CHECKPOINT_DURATION, variant, Metric.CHECKPOINTS, sorted.length);
        } finally {
            deleteQuietly(dir);
        }
    }

    // ---------------------------------------------------------------- scenarios 6 and 7

    /**
     * A window scenario: per run a fresh unbounded {@link WindowJob}; after {@code plan.windowWarmup()}
     * the records passed to the window operator ({@link WindowFunctions.Interleave}'s count) over
     * {@code plan.windowWindow()}; median of {@code plan.windowRuns()}. Then one bounded run over the
     * first {@code plan.checkRecords(workload)} records, whose sink must see exactly the windows and
     * result sum of {@link WindowWorkload#expected}.
     */
    private void window(WindowWorkload workload) throws Exception {
        Scenario scenario = workload.scenario();
        Path dir = Files.createTempDirectory("flink-compare-" + scenario.id());
        String variant = plan.windowVariant();
        long interval = plan.windowCheckpointInterval().toMillis();
        List<Double> rates = new ArrayList<>();
        List<Double> perCpu = new ArrayList<>();
        try (FlinkCluster cluster = FlinkCluster.start(plainConfiguration())) {
            for (int run = 1; run <= plan.windowRuns(); run++) {
                JobID id = cluster.submit(WindowJob.build(workload, 0, interval, plan.windowOutOfOrderness(),
                        dir.resolve("run" + run).toUri().toString(), null));
                cluster.awaitStatus(id, JobStatus.RUNNING, Duration.ofSeconds(60));
                long base = Recorder.processed();
                FlinkCluster.await("records to flow", Duration.ofSeconds(60), () -> Recorder.processed() > base);
                TimeUnit.MILLISECONDS.sleep(plan.windowWarmup().toMillis()); // warm-up
                long c0 = Recorder.processed();
                long t0 = System.nanoTime();
                long cpu0 = processCpuNanos();
                TimeUnit.MILLISECONDS.sleep(plan.windowWindow().toMillis()); // the measured window
                long c1 = Recorder.processed();
                long t1 = System.nanoTime();
                long cpu1 = processCpuNanos();
                double rate = (c1 - c0) * 1e9 / (t1 - t0);
                rates.add(rate);
                perCpu.add((c1 - c0) * 1e9 / Math.max(1, cpu1 - cpu0));
                log("%s run %d/%d: %.3f M records/s (%.3f M per CPU-second of the JVM)", scenario.id(), run,
                        plan.windowRuns(), rate / 1e6, (c1 - c0) * 1e3 / Math.max(1, cpu1 - cpu0));
                cluster.cancel(id);
            }
            results.add(scenario, variant, Metric.RECORDS_PER_S, Stats.median(rates))
                    .add(scenario, variant, Metric.RECORDS_PER_CPU_S, Stats.median(perCpu))
                    .add(scenario, variant, Metric.RUNS, rates.size());

            long records = plan.checkRecords(workload);
            WindowWorkload.Expected expected = workload.expected(records);
            String sinkId = UUID.randomUUID().toString();
            CheckCounters.open(sinkId);
            CheckCounters.Counted counted;
            try {
                JobID id = cluster.submit(WindowJob.build(workload, records, interval, plan.windowOutOfOrderness(),
                        dir.resolve("check").toUri().toString(), sinkId));
                cluster.awaitStatus(id, JobStatus.FINISHED, Duration.ofMinutes(10));
                counted = CheckCounters.read(sinkId);
            } finally {
                CheckCounters.close(sinkId);
            }
            String checkVariant = plan.windowCheckVariant(workload);
            log("%s %s: %d windows fired (expected %d), sum of results %d (expected %d)", scenario.id(), checkVariant,
                    counted.received(), expected.windows(), counted.sum(), expected.resultSum());
            if (counted.received() != expected.windows() || counted.sum() != expected.resultSum()) {
                throw new IllegalStateException("The bounded " + scenario.id() + " run over " + records + " records"
                        + " fired " + counted.received() + " windows with results summing to " + counted.sum() + ", but the"
                        + " workload has " + expected.windows() + " windows summing to " + expected.resultSum()
                        + ": the job computes something else than the workload says");
            }
            results.add(scenario, checkVariant, Metric.WINDOWS_FIRED, counted.received())
                    .add(scenario, checkVariant, Metric.WINDOWS_EXPECTED, expected.windows());
        } finally {
            deleteQuietly(dir);
        }
    }

    private static long processCpuNanos() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os ? os.getProcessCpuTime() : -1;
    }

    private static CheckpointStatsSnapshot stats(FlinkCluster cluster, JobID id) throws Exception {
        AccessExecutionGraph g = cluster.executionGraph(id).get(30, TimeUnit.SECONDS);
        return g.getCheckpointStatsSnapshot();
    }

    private static long latestCompletedCheckpoint(FlinkCluster cluster, JobID id) throws Exception {
        long latest = 0;
        for (AbstractCheckpointStats c : stats(cluster, id).getHistory().getCheckpoints()) {
            if (c.getStatus() == CheckpointStatsStatus.COMPLETED || c.getStatus() == CheckpointStatsStatus.IN_PROGRESS) {
                latest = Math.max(latest, c.getCheckpointId());
            }
        }
        return latest;
    }

    // ---------------------------------------------------------------- set-up

    /**
     * {@link Scenario#KAFKA_EXACTLY_ONCE}: the job of {@code flink-harness/src/kafka} (only in the harness
     * modules that have flink-connector-kafka, 1.20 and 2.3), looked up by name so that this class also
     * compiles for 1.13 and 1.14, which declare the scenario not run.
     */
    private void kafka() throws Exception {
        Class<?> type;
        try {
            type = Class.forName("io.sluice.compare.flink.FlinkKafkaScenario");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("This harness module was built without flink-harness/src/kafka (and"
                    + " flink-connector-kafka); add them to its pom as compare-flink-1.20 does", e);
        }
        ((OptionalScenario) type.getDeclaredConstructor().newInstance()).run(plan, results, plainConfiguration(),
                line -> log("%s: %s", Scenario.KAFKA_EXACTLY_ONCE.id(), line));
    }

    /**
     * {@link Scenario#LARGE_STATE}: the code of {@code flink-harness/src/rocksdb} (only in the harness modules
     * that have flink-statebackend-rocksdb, 1.20 and 2.3), looked up by name as {@link #kafka()} is.
     */
    private void largeState() throws Exception {
        Class<?> type;
        try {
            type = Class.forName("io.sluice.compare.flink.FlinkLargeState");
        } catch (ClassNotFoundException e) {
            throw new IllegalStateException("This harness module was built without flink-harness/src/rocksdb (and"
                    + " flink-statebackend-rocksdb); add them to its pom as compare-flink-1.20 does", e);
        }
        ((LargeStateScenario) type.getDeclaredConstructor().newInstance()).run(largeState, results,
                line -> log("%s: %s", Scenario.LARGE_STATE.id(), line));
    }

    /**
     * {@code c} with ZooKeeper HA on {@code quorum} for the cluster {@code clusterId}, its HA storage at
     * {@code storageDir} (a URI), as a standalone HA set-up has it.
     */
    static Configuration withZooKeeperHa(Configuration c, String quorum, String storageDir, String clusterId) {
        c.setString("high-availability", "zookeeper");
        c.setString("high-availability.zookeeper.quorum", quorum);
        c.setString("high-availability.storageDir", storageDir);
        c.setString("high-availability.cluster-id", clusterId);
        return c;
    }

    static Configuration plainConfiguration() {
        Configuration c = new Configuration();
        c.setString("rest.bind-port", "0");
        c.setString("taskmanager.memory.managed.size", "16m");
        return c;
    }

    private void awaitCheckpoints(int more, String what) throws InterruptedException {
        long target = Recorder.checkpointsCompleted() + more;
        FlinkCluster.await(what, Duration.ofSeconds(120), () -> Recorder.checkpointsCompleted() >= target);
    }

    /** A job running on a cluster. */
    private record RunningJob(FlinkCluster cluster, JobID id) {
    }

    /** A fresh ZooKeeper, HA cluster id and slowfs directory for one measurement. */
    private final class Environment implements AutoCloseable {
        final Path dir;
        final EmbeddedZooKeeper zk;
        final String clusterId = "compare-" + UUID.randomUUID();
        final int retained;

        Environment(int retained) throws Exception {
            this.retained = retained;
            this.dir = Files.createTempDirectory("flink-compare");
            this.zk = new EmbeddedZooKeeper(Files.createDirectories(dir.resolve("zookeeper")).toFile());
        }

        Configuration configuration() {
            Configuration c = withZooKeeperHa(plainConfiguration(), zk.quorum(), "slowfs://" + dir.resolve("ha"),
                    clusterId);
            c.setString("state.checkpoints.num-retained", Integer.toString(retained));
            return c;
        }

        /** Starts a cluster, submits the counting job, and waits until {@code checkpoints} have completed. */
        RunningJob startJob(int checkpoints) throws Exception {
            FlinkCluster cluster = FlinkCluster.start(configuration());
            JobID id = cluster.submit(CountingJob.build(plan.keys(), plan.recoveryRate(),
                    plan.recoveryCheckpointInterval().toMillis(), "slowfs://" + dir.resolve("checkpoints")));
            cluster.awaitStatus(id, JobStatus.RUNNING, Duration.ofSeconds(60));
            awaitCheckpoints(checkpoints + 1, (checkpoints + 1) + " completed checkpoints");
            return new RunningJob(cluster, id);
        }

        CompletableFuture<FlinkCluster> startClusterAsync() {
            Configuration c = configuration();
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return FlinkCluster.start(c);
                } catch (Exception e) {
                    throw new IllegalStateException("The new Flink cluster did not start: " + e, e);
                }
            });
        }

        @Override
        public void close() throws Exception {
            StorageFaults.heal();
            zk.close();
            deleteQuietly(dir);
        }
    }

    private void log(String format, Object... args) {
        System.out.printf(Locale.ROOT, "[%s] " + format + "%n", prepend(system, args));
        System.out.flush();
    }

    private static Object[] prepend(Object first, Object[] rest) {
        Object[] all = new Object[rest.length + 1];
        all[0] = first;
        System.arraycopy(rest, 0, all, 1, rest.length);
        return all;
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException ignored) {
            // best effort
        }
    }
}
