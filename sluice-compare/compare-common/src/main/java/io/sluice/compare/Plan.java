package io.sluice.compare;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The parameters of one comparison run, identical for every system. {@link #full()} is what
 * docs/benchmarks.md reports; {@link #smoke()} is the short version CI runs to check that every
 * scenario produces numbers for every system (its figures mean nothing).
 *
 * @param mode                       "full" or "smoke"
 * @param keys                       distinct keys of the keyed counting job in the recovery scenarios
 * @param recoveryRate               records/s of the (rate-limited) source in the recovery scenarios, all subtasks
 * @param recoveryCheckpointInterval checkpoint interval in the recovery scenarios
 * @param statusWindow               how long status is queried in each status scenario
 * @param queryPeriod                time between two status queries (10 ms)
 * @param statusRetained             retained checkpoints in the status scenarios
 * @param statusStorageLatency       storage read latency in the "extra checkpoints in ZooKeeper" status variant
 * @param zkLatency                  latency added to each ZooKeeper round trip in the "ZooKeeper slow" variant
 * @param failoverRetained           N values of the task-failover scenario
 * @param failoverLatencies          D values (per storage read) of the task-failover scenario
 * @param failoverRepeats            failovers measured per (N, D); the median is reported
 * @param jmRetained                 N values of the job-manager failover scenario
 * @param jmLatencies                D values of the job-manager failover scenario
 * @param jmRepeats                  restarts measured per (N, D); the median is reported
 * @param throughputKeys             distinct keys of the throughput job
 * @param throughputRuns             measured throughput runs (fresh job each); the median is reported
 * @param throughputWarmup           warm-up before each throughput window
 * @param throughputWindow           measured window
 * @param checkpointKeys             distinct keys (state entries) in the checkpoint-duration scenario
 * @param checkpointsMeasured        completed checkpoints measured in the checkpoint-duration scenario
 * @param checkpointInterval         checkpoint interval of the throughput and checkpoint-duration scenarios
 * @param windowRuns                 measured runs (fresh job each) of each window scenario; the median is reported
 * @param windowWarmup               warm-up of each window run before its measured window
 * @param windowWindow               measured window of each window run
 * @param windowCheckpointInterval   checkpoint interval of the window scenarios
 * @param windowOutOfOrderness       bounded out-of-orderness of the window scenarios' watermarks (both systems)
 * @param tumblingCheckRecords       records of the bounded run that checks the tumbling scenario's fired windows
 * @param sessionCheckRecords        records of the bounded run that checks the session scenario's fired sessions
 * @param countingCheckRecords       records of the bounded run that checks the two-task-manager scenario's
 *                                   per-key counts (a multiple of {@code throughputKeys})
 * @param twoTaskManagerWarmup       warm-up before each two-task-manager throughput window (the full plan:
 *                                   {@code throughputWarmup}; the smoke plan none, to keep CI short)
 * @param twoTaskManagerWindow       measured window of the two-task-manager throughput (the full plan:
 *                                   {@code throughputWindow})
 */
public record Plan(String mode, int keys, double recoveryRate, Duration recoveryCheckpointInterval,
                   Duration statusWindow, Duration queryPeriod, int statusRetained, Duration statusStorageLatency,
                   Duration zkLatency,
                   List<Integer> failoverRetained, List<Duration> failoverLatencies, int failoverRepeats,
                   List<Integer> jmRetained, List<Duration> jmLatencies, int jmRepeats,
                   int throughputKeys, int throughputRuns, Duration throughputWarmup, Duration throughputWindow,
                   int checkpointKeys, int checkpointsMeasured, Duration checkpointInterval,
                   int windowRuns, Duration windowWarmup, Duration windowWindow, Duration windowCheckpointInterval,
                   Duration windowOutOfOrderness, long tumblingCheckRecords, long sessionCheckRecords,
                   long countingCheckRecords, Duration twoTaskManagerWarmup, Duration twoTaskManagerWindow) {

    public Plan {
        if (countingCheckRecords % throughputKeys != 0) {
            throw new IllegalArgumentException("countingCheckRecords (" + countingCheckRecords + ") must be a multiple"
                    + " of throughputKeys (" + throughputKeys + "), so that every key gets the same count");
        }
        failoverRetained = List.copyOf(failoverRetained);
        failoverLatencies = List.copyOf(failoverLatencies);
        jmRetained = List.copyOf(jmRetained);
        jmLatencies = List.copyOf(jmLatencies);
    }

    public static Plan full() {
        return new Plan("full", 1024, 20_000, Duration.ofMillis(100),
                Duration.ofSeconds(10), Duration.ofMillis(10), 10, Duration.ofMillis(200), Duration.ofMillis(50),
                List.of(1, 10), List.of(Duration.ZERO, Duration.ofMillis(200)), 5,
                List.of(1, 10, 50), List.of(Duration.ofMillis(50), Duration.ofSeconds(1)), 1,
                1024, 3, Duration.ofSeconds(10), Duration.ofSeconds(10),
                200_000, 10, Duration.ofSeconds(1),
                3, Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(1), Duration.ofMillis(200),
                4_000_000, 800_000, 10_240_000, Duration.ofSeconds(10), Duration.ofSeconds(10));
    }

    public static Plan smoke() {
        // One (N, D) variant per failover scenario, each with N > 1 and D > 0 (the paths the other variants
        // take too), and half-second status windows: every scenario and figure is produced, in less CI time
        // (each variant of a Flink harness starts its own MiniCluster and ZooKeeper).
        return new Plan("smoke", 64, 5_000, Duration.ofMillis(100),
                Duration.ofMillis(500), Duration.ofMillis(10), 2, Duration.ofMillis(20), Duration.ofMillis(20),
                List.of(2), List.of(Duration.ofMillis(20)), 1,
                List.of(2), List.of(Duration.ofMillis(20)), 1,
                1024, 1, Duration.ofSeconds(1), Duration.ofSeconds(1),
                10_000, 2, Duration.ofMillis(500),
                1, Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofMillis(200),
                1_000_000, 400_000, 102_400, Duration.ZERO, Duration.ofMillis(500));
    }

    public static Plan of(String mode) {
        return switch (mode) {
            case "full" -> full();
            case "smoke" -> smoke();
            default -> throw new IllegalArgumentException("--mode takes 'full' or 'smoke', not '" + mode + "'");
        };
    }

    public boolean smokeMode() {
        return mode.equals("smoke");
    }

    /** Variant label of the status scenario: storage stalls while a task fails over. */
    public String statusTaskFailoverStalled() {
        return "task failover, storage stalled";
    }

    /** Variant label of the status scenario: storage stalls while a new job manager starts. */
    public String statusJmRestartStalled() {
        return "job-manager restart, storage stalled";
    }

    /** Variant label of the status scenario: every ZooKeeper round trip is slow during a task failover. */
    public String statusZkSlow() {
        return String.format(Locale.ROOT, "task failover, ZooKeeper +%d ms per round trip, N=%d",
                zkLatency.toMillis(), statusRetained);
    }

    /**
     * Variant label of the status scenario: ZooKeeper holds checkpoints the job manager's memory lacks
     * (pinned by another live session, as a previous leader's would), storage slow.
     */
    public String statusExtraCheckpoints() {
        return String.format(Locale.ROOT, "task failover, ZooKeeper holds checkpoints memory lacks, D=%d ms, N=%d",
                statusStorageLatency.toMillis(), statusRetained);
    }

    /** Variant label "N=…, D=… ms" used by the failover scenarios. */
    public static String nd(int retained, Duration latency) {
        return String.format(Locale.ROOT, "N=%d, D=%d ms", retained, latency.toMillis());
    }

    /** Variant label of a window scenario: {@code "parallelism 2, checkpoints every 1000 ms"}. */
    public String windowVariant() {
        return String.format(Locale.ROOT, "parallelism 2, checkpoints every %d ms",
                windowCheckpointInterval.toMillis());
    }

    /** Variant label of a window scenario's bounded check run: {@code "bounded check, 4000000 records"}. */
    public String windowCheckVariant(WindowWorkload workload) {
        return String.format(Locale.ROOT, "bounded check, %d records", checkRecords(workload));
    }

    /**
     * Variant label of the two-task-manager throughput:
     * {@code "2 task managers x 1 slot, parallelism 2, checkpoints every 1000 ms"}.
     */
    public String twoTaskManagerVariant() {
        return String.format(Locale.ROOT, "2 task managers x 1 slot, parallelism 2, checkpoints every %d ms",
                checkpointInterval.toMillis());
    }

    /** Variant label of the two-task-manager scenario's bounded check run: {@code "bounded check, 10240000 records, 1024 keys"}. */
    public String countingCheckVariant() {
        return String.format(Locale.ROOT, "bounded check, %d records, %d keys", countingCheckRecords, throughputKeys);
    }

    /** What the two-task-manager scenario's bounded check run must produce. */
    public CountingCheck countingCheck() {
        return new CountingCheck(countingCheckRecords, throughputKeys);
    }

    /** Records of the bounded check run of {@code workload}. */
    public long checkRecords(WindowWorkload workload) {
        return workload == WindowWorkload.TUMBLING ? tumblingCheckRecords : sessionCheckRecords;
    }

    /** One line per parameter, for the result file's header. */
    public String describe() {
        return String.format(Locale.ROOT, "mode=%s keys=%d recoveryRate=%.0f/s recoveryCheckpointInterval=%dms"
                        + " statusWindow=%dms queryPeriod=%dms statusRetained=%d statusStorageLatency=%dms zkLatency=%dms"
                        + " failoverRetained=%s failoverLatencies=%s failoverRepeats=%d jmRetained=%s jmLatencies=%s"
                        + " jmRepeats=%d throughputKeys=%d throughputRuns=%d throughputWarmup=%dms throughputWindow=%dms"
                        + " checkpointKeys=%d checkpointsMeasured=%d checkpointInterval=%dms"
                        + " windowRuns=%d windowWarmup=%dms windowWindow=%dms windowCheckpointInterval=%dms"
                        + " windowOutOfOrderness=%dms tumblingCheckRecords=%d sessionCheckRecords=%d"
                        + " countingCheckRecords=%d twoTaskManagerWarmup=%dms twoTaskManagerWindow=%dms",
                mode, keys, recoveryRate, recoveryCheckpointInterval.toMillis(), statusWindow.toMillis(),
                queryPeriod.toMillis(), statusRetained, statusStorageLatency.toMillis(), zkLatency.toMillis(),
                failoverRetained, failoverLatencies.stream().map(Duration::toMillis).toList(), failoverRepeats,
                jmRetained, jmLatencies.stream().map(Duration::toMillis).toList(), jmRepeats, throughputKeys,
                throughputRuns, throughputWarmup.toMillis(), throughputWindow.toMillis(), checkpointKeys,
                checkpointsMeasured, checkpointInterval.toMillis(), windowRuns, windowWarmup.toMillis(),
                windowWindow.toMillis(), windowCheckpointInterval.toMillis(), windowOutOfOrderness.toMillis(),
                tumblingCheckRecords, sessionCheckRecords, countingCheckRecords, twoTaskManagerWarmup.toMillis(),
                twoTaskManagerWindow.toMillis());
    }
}
