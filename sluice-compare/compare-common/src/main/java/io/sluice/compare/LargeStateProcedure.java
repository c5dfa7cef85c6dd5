package io.sluice.compare;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * {@link Scenario#LARGE_STATE} on one {@link LargeStateSystem}, the same steps and measurements for
 * every system:
 * <ol>
 *   <li><b>load</b>: the job starts at the plan's parallelism and writes every key once, unthrottled;
 *       records/s from its first processed record until {@code keys} were processed;</li>
 *   <li><b>steady</b>: after {@code steadyWarmup} more checkpoints, over {@code steadyWindow}: records/s
 *       (and per CPU-second of the JVM) at the paced rate of {@code changePerSecond × keys}; per
 *       checkpoint the bytes new in the checkpoint directory ({@link UploadMeter}) and the duration the
 *       system reports; the full state size of the latest checkpoint;</li>
 *   <li><b>task failover</b>, {@code failovers} times: a keyed task throws; the time to the first record
 *       processed with restored state, and to the first checkpoint triggered after the throw completing, and
 *       the bytes written to the checkpoint directory from just before the failure until then;</li>
 *   <li><b>job-manager failover</b>: the cluster stops (job manager and task executors, as when the job
 *       manager's process exits) and a new one starts on the same HA store; from its start to the first record
 *       processed with restored state, and to the first checkpoint triggered after its start completing;</li>
 *   <li><b>savepoint</b> of the running job: trigger to completion, and its size;</li>
 *   <li><b>rescale</b> {@code parallelism -> rescaleTo}: stop with a savepoint, start from it with the keyed
 *       operator at {@code rescaleTo}; from the stop request to the savepoint, to the first record with
 *       restored state, and to the first completed checkpoint of the new job;</li>
 *   <li><b>rescale from the latest checkpoint</b> (to {@code rescaleTo}, or back to {@code parallelism} if the
 *       rescale above succeeded): cancel keeping the checkpoints, start from the latest; the same two times.</li>
 * </ol>
 * Every figure is added to {@code results} under the plan's variant, as soon as it is known (a step that
 * fails leaves the earlier figures).
 *
 * <p>Thread rules: the harness thread; the waits poll every {@value #POLL_MS} ms.
 */
public final class LargeStateProcedure {
    static final long POLL_MS = 20;
    private final LargeStatePlan plan;
    private final LargeStateSystem system;
    private final Results results;
    private final java.util.function.BiConsumer<String, String> note;
    private final Consumer<String> log;
    private final Path work;
    private final String variant;

    /**
     * @param results where the figures go (rows)
     * @param note    where notes go (header lines of the result file), e.g. which step failed and why
     * @param work    a directory for the savepoints
     */
    public LargeStateProcedure(LargeStatePlan plan, LargeStateSystem system, Results results,
                               java.util.function.BiConsumer<String, String> note, Path work, Consumer<String> log) {
        this.note = note;
        this.plan = plan;
        this.system = system;
        this.results = results;
        this.work = work;
        this.log = log;
        this.variant = plan.variant();
    }

    /**
     * Runs every step. The load and steady phases must succeed (the others need them); a later step that
     * fails is logged and recorded in the result header {@code large-state-failed-<step>}, the next steps
     * still run, and at the end an {@link IllegalStateException} names every failed step. Cancels the job
     * at the end.
     */
    public void run() throws Exception {
        List<String> failed = new ArrayList<>();
        try {
            start(plan.parallelism(), null);
            load();
            steady();
            step("task-failover", failed, () -> {
                for (int i = 1; i <= plan.failovers(); i++) {
                    failover(i);
                }
            });
            step("jm-failover", failed, this::jobManagerFailover);
            step("savepoint", failed, this::savepoint);
            step("rescale", failed, this::rescale);
            if (!running()) {
                start(plan.parallelism(), null); // the failed rescale left no job: the next step needs one
                awaitCheckpointAfterId(0, "a checkpoint of the job restarted after the failed rescale");
            }
            step("rescale-from-checkpoint", failed, this::rescaleFromCheckpoint);
        } finally {
            system.cancel();
        }
        if (!failed.isEmpty()) {
            throw new IllegalStateException("large-state steps failed (their figures are missing, the others are"
                    + " in the result file): " + String.join("; ", failed));
        }
    }

    /** One step that may fail without stopping the procedure. */
    private interface Step {
        void run() throws Exception;
    }

    private void step(String name, List<String> failed, Step step) throws Exception {
        try {
            step.run();
        } catch (Exception | OutOfMemoryError e) {
            if (e instanceof InterruptedException) {
                throw e;
            }
            String reason = rootMessage(e);
            failed.add(name + ": " + reason);
            note.accept("large-state-failed-" + name, reason);
            log("%s FAILED: %s", name, reason);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? e.toString() : e.getClass().getSimpleName() + " caused by " + t;
    }

    private void load() throws Exception {
        awaitCondition("the job to process its first record", Duration.ofMinutes(5), () -> system.processed() > 0);
        long n0 = system.processed();
        long t0 = System.nanoTime();
        Duration loadTimeout = Duration.ofMinutes(10).plusSeconds(plan.keys() / 20_000);
        awaitCondition("the load phase to write all " + plan.keys() + " keys", loadTimeout,
                () -> system.processed() >= plan.keys());
        double rate = (system.processed() - n0) * 1e9 / (System.nanoTime() - t0);
        add(Scenario.Metric.LOAD_RECORDS_PER_S, rate);
        log("load: %,d keys written at %,.0f records/s (%.1f s)", plan.keys(), rate, (System.nanoTime() - t0) / 1e9);
    }

    private void steady() throws Exception {
        long afterLoad = latestId();
        awaitCheckpointAfterId(afterLoad + plan.steadyWarmup() - 1, "the warm-up checkpoints after the load");
        UploadMeter meter = new UploadMeter(system.checkpointDir());
        meter.baseline();
        long firstId = latestId();
        long lastSeen = firstId;
        List<Long> uploads = new ArrayList<>();
        // Every checkpoint completed in the window, seen while it is in the system's recent history (Sluice's
        // job details and Flink's checkpoint statistics keep only the last few): the median is over all of them.
        Map<Long, LargeStateSystem.CheckpointSample> completed = new TreeMap<>();
        long p0 = system.processed();
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        long end = t0 + plan.steadyWindow().toNanos();
        while (System.nanoTime() < end || uploads.isEmpty()) {
            if (System.nanoTime() - end > Duration.ofMinutes(10).toNanos()) {
                throw new IllegalStateException("No checkpoint completed in the 10 minutes after the steady window;"
                        + " look at the system's log for declined or failing checkpoints");
            }
            long id = 0;
            for (LargeStateSystem.CheckpointSample sample : system.checkpoints()) {
                completed.putIfAbsent(sample.id(), sample);
                id = Math.max(id, sample.id());
            }
            if (id > lastSeen) {
                long bytes = meter.newBytes();
                for (long k = lastSeen + 1; k <= id; k++) {
                    uploads.add(bytes / (id - lastSeen));
                }
                lastSeen = id;
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
        long t1 = System.nanoTime();
        double rate = (system.processed() - p0) * 1e9 / (t1 - t0);
        double perCpu = (system.processed() - p0) * 1e9 / Math.max(1, cpuNanos() - cpu0);
        final long last = lastSeen;
        List<LargeStateSystem.CheckpointSample> window = completed.values().stream()
                .filter(c -> c.id() > firstId && c.id() <= last).sorted(Comparator.comparingLong(LargeStateSystem.CheckpointSample::id)).toList();
        double durationP50 = Stats.median(window.stream().map(LargeStateSystem.CheckpointSample::durationMs).toList());
        long stateBytes = window.isEmpty() ? -1 : window.get(window.size() - 1).stateBytes();
        double uploadP50 = Stats.median(uploads);
        add(Scenario.Metric.STEADY_TARGET_RATE, plan.steadyRate());
        add(Scenario.Metric.RECORDS_PER_S, rate);
        add(Scenario.Metric.RECORDS_PER_CPU_S, perCpu);
        add(Scenario.Metric.UPLOAD_BYTES_P50, uploadP50);
        add(Scenario.Metric.DURATION_P50_MS, durationP50);
        add(Scenario.Metric.STATE_BYTES, stateBytes);
        add(Scenario.Metric.UPLOAD_FRACTION_P50, stateBytes > 0 ? uploadP50 / stateBytes : Double.NaN);
        double uploadMean = uploads.stream().mapToLong(Long::longValue).average().orElse(Double.NaN);
        double changedBytes = rate * plan.checkpointInterval().toMillis() / 1000.0 * plan.valueBytes();
        add(Scenario.Metric.UPLOAD_BYTES_MEAN, uploadMean);
        add(Scenario.Metric.UPLOAD_PER_CHANGED_BYTE, changedBytes > 0 ? uploadMean / changedBytes : Double.NaN);
        add(Scenario.Metric.UPLOAD_P50_PER_CHANGED_BYTE, changedBytes > 0 ? uploadP50 / changedBytes : Double.NaN);
        add(Scenario.Metric.CHECKPOINTS, uploads.size());
        log("steady: %,.0f records/s (target %,.0f), %,.0f per CPU-second; %d checkpoints: upload p50 %,.0f bytes"
                        + " (all %s), duration p50 %.0f ms (all %s); full state %,d bytes", rate, plan.steadyRate(),
                perCpu, uploads.size(), uploadP50, uploads, durationP50,
                window.stream().map(c -> String.format(Locale.ROOT, "%.0f", c.durationMs())).toList(), stateBytes);
    }

    private void failover(int i) throws Exception {
        UploadMeter meter = new UploadMeter(system.checkpointDir());
        meter.baseline();
        long thrown = system.failTaskAndAwaitThrow(Duration.ofMinutes(2));
        long thrownMillis = System.currentTimeMillis() - (System.nanoTime() - thrown) / 1_000_000;
        Duration timeout = restoreTimeout();
        long restored = system.awaitRestoredRecordAfter(thrown, timeout);
        LargeStateSystem.CheckpointSample first = awaitCheckpointTriggeredAfter(thrownMillis, timeout,
                "the first checkpoint after failover " + i);
        long checkpointed = System.nanoTime();
        long uploaded = meter.newBytes();
        double toRunning = (restored - thrown) / 1e6;
        double toCheckpoint = (checkpointed - thrown) / 1e6;
        failoversToRunning.add(toRunning);
        failoversToCheckpoint.add(toCheckpoint);
        failoverUploads.add(uploaded);
        log("task failover %d/%d: restored state processed after %.0f ms, checkpoint %d completed after %.0f ms"
                + " (triggered %d ms after the throw, took %.0f ms), %,d bytes written to the checkpoint directory since"
                + " the failure", i, plan.failovers(), toRunning, first.id(), toCheckpoint,
                first.triggerMillis() - thrownMillis, first.durationMs(), uploaded);
        if (i == plan.failovers()) {
            add(Scenario.Metric.TO_RUNNING_MS, Stats.median(failoversToRunning));
            add(Scenario.Metric.TO_CHECKPOINT_MS, Stats.median(failoversToCheckpoint));
            add(Scenario.Metric.FAILOVER_UPLOAD_BYTES, Stats.median(failoverUploads));
        }
    }

    private void jobManagerFailover() throws Exception {
        long started = system.restartCluster(restoreTimeout());
        long startedMillis = System.currentTimeMillis() - (System.nanoTime() - started) / 1_000_000;
        long restored = system.awaitRestoredRecordAfter(started, restoreTimeout());
        LargeStateSystem.CheckpointSample first = awaitCheckpointTriggeredAfter(startedMillis, restoreTimeout(),
                "the first checkpoint after the job-manager failover");
        double toCheckpoint = (System.nanoTime() - started) / 1e6;
        double toRunning = (restored - started) / 1e6;
        add(Scenario.Metric.JM_FAILOVER_TO_RUNNING_MS, toRunning);
        add(Scenario.Metric.JM_FAILOVER_TO_CHECKPOINT_MS, toCheckpoint);
        log("job-manager failover: the new cluster's restored state processed after %.0f ms, checkpoint %d completed"
                + " after %.0f ms (triggered %d ms after the start, took %.0f ms)", toRunning, first.id(), toCheckpoint,
                first.triggerMillis() - startedMillis, first.durationMs());
    }

    private final List<Double> failoversToRunning = new ArrayList<>();
    private final List<Double> failoversToCheckpoint = new ArrayList<>();
    private final List<Long> failoverUploads = new ArrayList<>();

    private void savepoint() throws Exception {
        Path parent = Files.createDirectories(work.resolve("savepoints"));
        long t0 = System.nanoTime();
        String path = system.savepoint(parent, false, restoreTimeout());
        double ms = (System.nanoTime() - t0) / 1e6;
        long bytes = UploadMeter.sizeOf(system.localPathOf(path));
        add(Scenario.Metric.SAVEPOINT_MS, ms);
        add(Scenario.Metric.SAVEPOINT_BYTES, bytes);
        log("savepoint: %.0f ms, %,d bytes, %s", ms, bytes, path);
    }

    private void rescale() throws Exception {
        Path parent = Files.createDirectories(work.resolve("rescale"));
        long t0 = System.nanoTime();
        long t0Millis = System.currentTimeMillis();
        String path = system.savepoint(parent, true, restoreTimeout());
        double savepointMs = (System.nanoTime() - t0) / 1e6;
        start(plan.rescaleTo(), path);
        long restored = system.awaitRestoredRecordAfter(t0, restoreTimeout());
        LargeStateSystem.CheckpointSample first = awaitCheckpointTriggeredAfter(t0Millis, restoreTimeout(),
                "the first checkpoint at parallelism " + plan.rescaleTo());
        double toCheckpoint = (System.nanoTime() - t0) / 1e6;
        double toRunning = (restored - t0) / 1e6;
        add(Scenario.Metric.RESCALE_SAVEPOINT_MS, savepointMs);
        add(Scenario.Metric.RESCALE_TO_RUNNING_MS, toRunning);
        add(Scenario.Metric.RESCALE_TO_CHECKPOINT_MS, toCheckpoint);
        log("rescale %d -> %d: savepoint after %.0f ms, restored state processed after %.0f ms, checkpoint %d"
                + " completed after %.0f ms", plan.parallelism(), plan.rescaleTo(), savepointMs, toRunning, first.id(),
                toCheckpoint);
    }

    /**
     * Rescale without a savepoint, as large-state users of both systems do: cancel keeping the retained
     * checkpoints, start at {@code rescaleTo} from the latest; from the cancel request to the first record
     * with restored state and to the first completed checkpoint at the new parallelism.
     */
    private void rescaleFromCheckpoint() throws Exception {
        int from = currentParallelism;
        int to = from == plan.rescaleTo() ? plan.parallelism() : plan.rescaleTo();
        long t0 = System.nanoTime();
        long t0Millis = System.currentTimeMillis();
        String checkpoint = system.cancelKeepingLatestCheckpoint(restoreTimeout());
        start(to, checkpoint);
        long restored = system.awaitRestoredRecordAfter(t0, restoreTimeout());
        LargeStateSystem.CheckpointSample first = awaitCheckpointTriggeredAfter(t0Millis, restoreTimeout(),
                "the first checkpoint at parallelism " + to);
        double toCheckpoint = (System.nanoTime() - t0) / 1e6;
        double toRunning = (restored - t0) / 1e6;
        add(Scenario.Metric.RESCALE_CHECKPOINT_TO_RUNNING_MS, toRunning);
        add(Scenario.Metric.RESCALE_CHECKPOINT_TO_CHECKPOINT_MS, toCheckpoint);
        log("rescale %d -> %d from the latest checkpoint (%s): restored state processed after %.0f ms, checkpoint %d"
                + " completed after %.0f ms", from, to, checkpoint, toRunning, first.id(), toCheckpoint);
    }

    private int currentParallelism;

    private void start(int keyedParallelism, @Nullable String restoreFrom) throws Exception {
        system.start(keyedParallelism, restoreFrom);
        currentParallelism = keyedParallelism;
    }

    private boolean running() {
        try {
            system.checkpoints();
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    private Duration restoreTimeout() {
        return Duration.ofMinutes(5).plusSeconds((long) (plan.stateGb() * 120));
    }

    private long latestId() throws Exception {
        return system.checkpoints().stream().mapToLong(LargeStateSystem.CheckpointSample::id).max().orElse(0);
    }

    private void awaitCheckpointAfterId(long id, String what) throws Exception {
        long deadline = System.nanoTime() + restoreTimeout().toNanos();
        while (latestId() <= id) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out waiting for " + what + " (a checkpoint after " + id + ")");
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
    }

    private LargeStateSystem.CheckpointSample awaitCheckpointTriggeredAfter(long millis, Duration timeout, String what)
            throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            for (LargeStateSystem.CheckpointSample c : system.checkpoints()) {
                if (c.triggerMillis() >= millis) {
                    return c;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
    }

    private static void awaitCondition(String what, Duration timeout, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(POLL_MS);
        }
    }

    /** A savepoint path as a local directory ({@code file:} URIs and plain paths). */
    static Path localPath(String path) {
        if (path.startsWith("file:")) {
            return Path.of(java.net.URI.create(path));
        }
        return Path.of(path);
    }

    private void add(String metric, double value) {
        results.add(Scenario.LARGE_STATE, variant, metric, value);
    }

    private static long cpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    private void log(String format, Object... args) {
        log.accept(String.format(Locale.ROOT, format, args));
    }
}
