package io.sluice.compare.driver;

import io.sluice.compare.HarnessArgs;
import io.sluice.compare.LatencySummary;
import io.sluice.compare.Machine;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Scenario.Metric;
import io.sluice.compare.WindowWorkload;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A harness for the driver's tests: takes the real harness command line and writes a result file
 * with every metric of every scenario of the plan, the values scaled by a per-system factor. The
 * system is the result file's name without ".tsv"; a name containing "hang" writes one scenario
 * and then sleeps, "crash" exits with 3 after one scenario, "empty" writes headers only. Like the
 * real harnesses, Flink 1.13.6 and 1.14.6 declare the optional (window) scenarios not run.
 */
public final class FakeHarness {
    private FakeHarness() {}

    public static void main(String[] argv) throws InterruptedException {
        HarnessArgs args = HarnessArgs.parse(argv);
        String file = args.out().getFileName().toString();
        String system = file.substring(0, file.length() - ".tsv".length());
        Plan plan = args.plan();
        Results r = new Results(system);
        Machine.record(r, plan);
        System.out.println("fake harness for " + system + ", scenarios " + args.scenarios());
        System.err.println("a line on stderr");
        if (system.contains("empty")) {
            r.write(args.out());
            return;
        }
        double f = factor(system);
        for (Scenario s : args.scenarios()) {
            if (s.optional() && skipsOptional(system)) {
                r.notRun(s, "optional scenario, not run by this fake of " + system);
                r.write(args.out());
                continue;
            }
            add(r, plan, s, f);
            r.write(args.out());
            if (system.contains("hang")) {
                new java.util.concurrent.CountDownLatch(1).await(); // hangs until the driver kills it
            }
            if (system.contains("crash")) {
                System.exit(3);
            }
        }
    }

    /** Whether {@code system} leaves the optional scenarios out, as the Flink 1.13 and 1.14 harnesses do. */
    static boolean skipsOptional(String system) {
        return system.equals("flink-1.13.6") || system.equals("flink-1.14.6");
    }

    /** Sluice 1; Flink versions slower (bigger times) by a version-specific factor. */
    static double factor(String system) {
        return switch (system) {
            case "sluice" -> 1;
            case "flink-1.13.6" -> 40;
            case "flink-1.14.6" -> 25;
            default -> 8;
        };
    }

    static void add(Results r, Plan plan, Scenario s, double f) {
        switch (s) {
            case STATUS_DURING_STALL -> {
                for (String v : List.of(plan.statusTaskFailoverStalled(), plan.statusJmRestartStalled(),
                        plan.statusZkSlow(), plan.statusExtraCheckpoints())) {
                    new LatencySummary(100, 0.05 * f, 0.4 * f, 2 * f, f > 10 ? 3 : 0, 0, 0).addTo(r, s, v);
                }
            }
            case TASK_FAILOVER -> {
                for (int n : plan.failoverRetained()) {
                    for (Duration d : plan.failoverLatencies()) {
                        String v = Plan.nd(n, d);
                        r.add(s, v, Metric.TO_RUNNING_MS, 5 * f + d.toMillis() * (f > 1 ? n : 0));
                        r.add(s, v, Metric.METADATA_READS, f > 1 ? n : 0);
                        r.add(s, v, Metric.RESTORED, 1);
                    }
                }
            }
            case JM_FAILOVER -> {
                for (int n : plan.jmRetained()) {
                    for (Duration d : plan.jmLatencies()) {
                        String v = Plan.nd(n, d);
                        r.add(s, v, Metric.TO_RUNNING_MS, (f > 1 ? n : 1) * d.toMillis() + 10 * f);
                        r.add(s, v, Metric.METADATA_READS, f > 1 ? n : 1);
                        r.add(s, v, Metric.FIRST_STATUS_MS, 0.4 * f);
                        r.add(s, v, Metric.STATUS_P99_MS, 0.6 * f);
                        r.add(s, v, Metric.STATUS_MAX_MS, 3 * f);
                    }
                }
            }
            case THROUGHPUT -> {
                r.add(s, "checkpoints every " + plan.checkpointInterval().toMillis() + " ms",
                        Metric.RECORDS_PER_S, 45_000_000 / Math.sqrt(f));
                r.add(s, "checkpoints every " + plan.checkpointInterval().toMillis() + " ms", Metric.RUNS,
                        plan.throughputRuns());
            }
            case THROUGHPUT_2TM -> {
                String v = plan.twoTaskManagerVariant();
                r.add(s, v, Metric.RECORDS_PER_S, 40_000_000 / Math.sqrt(f));
                r.add(s, v, Metric.RUNS, plan.throughputRuns());
                r.add(s, v, Metric.TASK_MANAGERS, 2);
                r.add(s, v, Metric.TCP_BYTES_PER_RECORD, 6);
                r.add(s, plan.countingCheckVariant(), Metric.CHECK_RECORDS, plan.countingCheckRecords());
                r.add(s, plan.countingCheckVariant(), Metric.CHECK_RECORDS_EXPECTED, plan.countingCheckRecords());
            }
            case CHECKPOINT_DURATION -> {
                String v = plan.checkpointKeys() + " keys";
                r.add(s, v, Metric.DURATION_P50_MS, 30 * Math.sqrt(f));
                r.add(s, v, Metric.DURATION_MAX_MS, 80 * Math.sqrt(f));
                r.add(s, v, Metric.STATE_BYTES, plan.checkpointKeys() * 16L);
                r.add(s, v, Metric.CHECKPOINTS, plan.checkpointsMeasured());
            }
            case WINDOW_TUMBLING, WINDOW_SESSION -> {
                WindowWorkload w = s == Scenario.WINDOW_TUMBLING ? WindowWorkload.TUMBLING : WindowWorkload.SESSION;
                r.add(s, plan.windowVariant(), Metric.RECORDS_PER_S, 9_000_000 / Math.sqrt(f));
                r.add(s, plan.windowVariant(), Metric.RUNS, plan.windowRuns());
                long windows = w.expected(plan.checkRecords(w)).windows();
                r.add(s, plan.windowCheckVariant(w), Metric.WINDOWS_FIRED, windows);
                r.add(s, plan.windowCheckVariant(w), Metric.WINDOWS_EXPECTED, windows);
            }
            case KAFKA_EXACTLY_ONCE -> {
                String v = "exactly once, checkpoints every 1000 ms";
                r.add(s, v, Metric.RECORDS_PER_S, 400_000 / Math.sqrt(f));
                r.add(s, v, Metric.VISIBILITY_P50_MS, 600 * Math.sqrt(f));
                r.add(s, v, Metric.VISIBILITY_P99_MS, 1050 * Math.sqrt(f));
                r.add(s, v, Metric.VISIBILITY_MAX_MS, 1100 * Math.sqrt(f));
                r.add(s, v, Metric.DUPLICATES, 0);
            }
            case LARGE_STATE -> {
                String v = io.sluice.compare.LargeStatePlan.of(plan.mode()).variant();
                r.add(s, v, Metric.LOAD_RECORDS_PER_S, 200_000 / Math.sqrt(f));
                r.add(s, v, Metric.RECORDS_PER_S, 70_000 / Math.sqrt(f));
                r.add(s, v, Metric.UPLOAD_BYTES_P50, 30_000_000 * Math.sqrt(f));
                r.add(s, v, Metric.DURATION_P50_MS, 1000 * Math.sqrt(f));
                r.add(s, v, Metric.TO_RUNNING_MS, 1500 * Math.sqrt(f));
                r.add(s, v, Metric.SAVEPOINT_MS, 10_000 * Math.sqrt(f));
                r.add(s, v, Metric.RESCALE_TO_CHECKPOINT_MS, 30_000 * Math.sqrt(f));
            }
        }
    }

    /** Where this class and compare-common are, as a class path for a forked JVM. */
    static String classpath() throws Exception {
        Path tests = Path.of(FakeHarness.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path common = Path.of(Results.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return tests + java.io.File.pathSeparator + common;
    }
}
