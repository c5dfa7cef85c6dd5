package io.sluice.compare.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compare.HarnessArgs;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.WindowWorkload;
import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.Scenario.Metric;
import io.sluice.compare.kafka.KafkaPlan;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the harness in smoke mode in-process and checks the result file: every scenario has every
 * metric for every variant the smoke plan defines, with plausible values. Never checks timing
 * beyond "a finite number": the build machine is shared, and the figures of a smoke run mean
 * nothing. The properties Sluice guarantees are checked exactly: a task failover reads no
 * checkpoint metadata, a job-manager failover reads exactly one.
 */
class SluiceHarnessSmokeTest {
    private static final String SYSTEM = SluiceHarness.SYSTEM;

    @TempDir
    Path dir;

    @Test
    void smokeRunWritesEveryScenarioVariantAndMetric() throws Exception {
        Path out = dir.resolve("sluice-smoke.tsv");
        long start = System.nanoTime();
        SluiceHarness.Outcome outcome = SluiceHarness.run(HarnessArgs.parse(
                new String[] {"--mode", "smoke", "--out", out.toString()}));
        System.out.printf("smoke run took %.1f s%n", (System.nanoTime() - start) / 1e9);

        assertThat(outcome.errors()).as("failed scenarios (their stack traces are in the test output)").isEmpty();
        Results.Parsed parsed = Results.read(out);
        assertThat(parsed.headers()).containsEntry("system", SYSTEM).containsKeys("version", "plan", "cores", "jvm",
                "sluice-setup", "note-status-extra", "kafka-plan", "kafka-broker", "kafka-job", "finished");
        assertThat(parsed.headers().get("version")).isNotBlank().doesNotContain("${");
        assertThat(parsed.rows()).allSatisfy(r -> assertThat(r.system()).isEqualTo(SYSTEM));
        Map<String, Double> v = parsed.rows().stream().collect(Collectors.toMap(
                r -> r.scenario() + "|" + r.variant() + "|" + r.metric(), Results.Row::value));
        Plan plan = Plan.smoke();

        List<String> statusVariants = List.of(plan.statusTaskFailoverStalled(), plan.statusJmRestartStalled(),
                plan.statusZkSlow(), plan.statusExtraCheckpoints());
        for (String variant : statusVariants) {
            Function<String, Double> m = metric -> value(v, Scenario.STATUS_DURING_STALL, variant, metric);
            assertThat(m.apply(Metric.QUERIES)).as(variant).isPositive();
            assertThat(m.apply(Metric.P50_MS)).as(variant).isFinite().isNotNegative();
            assertThat(m.apply(Metric.P99_MS)).as(variant).isFinite().isGreaterThanOrEqualTo(m.apply(Metric.P50_MS));
            assertThat(m.apply(Metric.MAX_MS)).as(variant).isFinite().isGreaterThanOrEqualTo(m.apply(Metric.P99_MS));
            assertThat(m.apply(Metric.OVER_1S)).as(variant).isNotNegative();
            assertThat(m.apply(Metric.UNANSWERED)).as(variant).isNotNegative();
            assertThat(m.apply(Metric.ERRORS)).as(variant).isNotNegative();
            assertThat(m.apply(Metric.METADATA_READS)).as(variant).isNotNegative();
        }
        assertThat(value(v, Scenario.STATUS_DURING_STALL, plan.statusExtraCheckpoints(), Metric.METADATA_READS))
                .as("a task failover reads no metadata, whatever ZooKeeper holds").isZero();

        for (String variant : nd(plan.failoverRetained(), plan.failoverLatencies())) {
            Function<String, Double> m = metric -> value(v, Scenario.TASK_FAILOVER, variant, metric);
            assertThat(m.apply(Metric.TO_RUNNING_MS)).as(variant).isFinite().isPositive();
            assertThat(m.apply(Metric.METADATA_READS)).as(variant + ": a task failover restores from memory")
                    .isZero();
            assertThat(m.apply(Metric.RESTORED)).as(variant).isBetween(0.0, 1.0);
        }

        for (String variant : nd(plan.jmRetained(), plan.jmLatencies())) {
            Function<String, Double> m = metric -> value(v, Scenario.JM_FAILOVER, variant, metric);
            assertThat(m.apply(Metric.TO_RUNNING_MS)).as(variant).isFinite().isPositive();
            assertThat(m.apply(Metric.METADATA_READS)).as(variant + ": only the latest checkpoint's metadata")
                    .isEqualTo(1.0);
            assertThat(m.apply(Metric.FIRST_STATUS_MS)).as(variant).isFinite().isNotNegative();
            assertThat(m.apply(Metric.STATUS_P99_MS)).as(variant).isFinite().isNotNegative();
            assertThat(m.apply(Metric.STATUS_MAX_MS)).as(variant).isFinite()
                    .isGreaterThanOrEqualTo(m.apply(Metric.STATUS_P99_MS));
        }

        String throughput = Throughput.variant(plan);
        assertThat(throughput).isEqualTo("parallelism 2, checkpoints every 500 ms");
        assertThat(value(v, Scenario.THROUGHPUT, throughput, Metric.RECORDS_PER_S)).isFinite().isPositive();
        assertThat(value(v, Scenario.THROUGHPUT, throughput, Metric.RUNS)).isEqualTo(plan.throughputRuns());
        assertThat(value(v, Scenario.THROUGHPUT, throughput, Metric.RECORDS_PER_CPU_S)).isFinite().isPositive();

        String twoTm = plan.twoTaskManagerVariant();
        assertThat(value(v, Scenario.THROUGHPUT_2TM, twoTm, Metric.RECORDS_PER_S)).isFinite().isPositive();
        assertThat(value(v, Scenario.THROUGHPUT_2TM, twoTm, Metric.RECORDS_PER_CPU_S)).isFinite().isPositive();
        assertThat(value(v, Scenario.THROUGHPUT_2TM, twoTm, Metric.RUNS)).isEqualTo(plan.throughputRuns());
        assertThat(value(v, Scenario.THROUGHPUT_2TM, twoTm, Metric.TASK_MANAGERS)).as("both task executors run tasks")
                .isEqualTo(2.0);
        assertThat(value(v, Scenario.THROUGHPUT_2TM, twoTm, Metric.TCP_BYTES_PER_RECORD))
                .as("half the records cross TCP, 8 bytes each plus framing").isBetween(3.0, 8.0);
        assertThat(value(v, Scenario.THROUGHPUT_2TM, plan.countingCheckVariant(), Metric.CHECK_RECORDS))
                .isEqualTo(plan.countingCheckRecords());
        assertThat(value(v, Scenario.THROUGHPUT_2TM, plan.countingCheckVariant(), Metric.CHECK_RECORDS_EXPECTED))
                .isEqualTo(plan.countingCheckRecords());

        String keys = "keys=" + plan.checkpointKeys();
        assertThat(value(v, Scenario.CHECKPOINT_DURATION, keys, Metric.DURATION_P50_MS)).isFinite().isPositive();
        assertThat(value(v, Scenario.CHECKPOINT_DURATION, keys, Metric.DURATION_MAX_MS)).isFinite()
                .isGreaterThanOrEqualTo(value(v, Scenario.CHECKPOINT_DURATION, keys, Metric.DURATION_P50_MS));
        assertThat(value(v, Scenario.CHECKPOINT_DURATION, keys, Metric.STATE_BYTES)).as("8-byte count per key at least")
                .isGreaterThanOrEqualTo(8.0 * plan.checkpointKeys());
        assertThat(value(v, Scenario.CHECKPOINT_DURATION, keys, Metric.CHECKPOINTS)).isEqualTo(plan.checkpointsMeasured());

        for (WindowWorkload w : WindowWorkload.values()) {
            assertThat(value(v, w.scenario(), plan.windowVariant(), Metric.RECORDS_PER_S)).as(w.name()).isFinite()
                    .isPositive();
            assertThat(value(v, w.scenario(), plan.windowVariant(), Metric.RUNS)).isEqualTo(plan.windowRuns());
            assertThat(value(v, w.scenario(), plan.windowVariant(), Metric.RECORDS_PER_CPU_S)).isFinite().isPositive();
            double expected = w.expected(plan.checkRecords(w)).windows();
            assertThat(expected).as("the check run of %s fires windows", w).isPositive();
            assertThat(value(v, w.scenario(), plan.windowCheckVariant(w), Metric.WINDOWS_EXPECTED)).isEqualTo(expected);
            assertThat(value(v, w.scenario(), plan.windowCheckVariant(w), Metric.WINDOWS_FIRED)).isEqualTo(expected);
        }

        KafkaPlan kafka = KafkaPlan.of(plan);
        String kv = kafka.variant();
        double kafkaRecords = kafka.backlog() + kafka.pacedRecords();
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.RECORDS_PER_S)).isFinite().isPositive();
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.VISIBILITY_P50_MS)).isFinite().isPositive();
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.VISIBILITY_P99_MS))
                .isGreaterThanOrEqualTo(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.VISIBILITY_P50_MS));
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.VISIBILITY_MAX_MS))
                .isGreaterThanOrEqualTo(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.VISIBILITY_P99_MS));
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.DUPLICATES)).isZero();
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.CHECK_RECORDS)).isEqualTo(kafkaRecords);
        assertThat(value(v, Scenario.KAFKA_EXACTLY_ONCE, kv, Metric.CHECK_RECORDS_EXPECTED)).isEqualTo(kafkaRecords);

        LargeStatePlan large = LargeStatePlan.of("smoke");
        String lv = large.variant();
        assertThat(parsed.headers()).containsKeys("large-state-plan", "large-state-setup", "large-state-job");
        for (String metric : List.of(Metric.LOAD_RECORDS_PER_S, Metric.RECORDS_PER_S, Metric.RECORDS_PER_CPU_S,
                Metric.UPLOAD_BYTES_P50, Metric.UPLOAD_BYTES_MEAN, Metric.UPLOAD_PER_CHANGED_BYTE,
                Metric.UPLOAD_P50_PER_CHANGED_BYTE, Metric.FAILOVER_UPLOAD_BYTES, Metric.DURATION_P50_MS, Metric.TO_RUNNING_MS, Metric.TO_CHECKPOINT_MS,
                Metric.JM_FAILOVER_TO_RUNNING_MS, Metric.JM_FAILOVER_TO_CHECKPOINT_MS, Metric.SAVEPOINT_MS, Metric.RESCALE_SAVEPOINT_MS, Metric.RESCALE_TO_RUNNING_MS,
                Metric.RESCALE_TO_CHECKPOINT_MS, Metric.RESCALE_CHECKPOINT_TO_RUNNING_MS,
                Metric.RESCALE_CHECKPOINT_TO_CHECKPOINT_MS)) {
            assertThat(value(v, Scenario.LARGE_STATE, lv, metric)).as(metric).isFinite().isPositive();
        }
        assertThat(value(v, Scenario.LARGE_STATE, lv, Metric.STATE_BYTES)).as("130-byte values of every key at least")
                .isGreaterThanOrEqualTo(130.0 * large.keys());
        assertThat(value(v, Scenario.LARGE_STATE, lv, Metric.SAVEPOINT_BYTES)).isGreaterThanOrEqualTo(130.0 * large.keys());
        assertThat(value(v, Scenario.LARGE_STATE, lv, Metric.STEADY_TARGET_RATE)).isEqualTo(large.steadyRate());

        int expectedRows = statusVariants.size() * 8
                + plan.failoverRetained().size() * plan.failoverLatencies().size() * 3
                + plan.jmRetained().size() * plan.jmLatencies().size() * 5 + 3 + 7 + 4 + 2 * 5 + 7 + 24;
        assertThat(parsed.rows()).as("no other rows").hasSize(expectedRows);
    }

    private static double value(Map<String, Double> values, Scenario scenario, String variant, String metric) {
        String key = scenario.id() + "|" + variant + "|" + metric;
        assertThat(values).as("row %s", key).containsKey(key);
        return values.get(key);
    }

    private static List<String> nd(List<Integer> retained, List<Duration> latencies) {
        List<String> out = new ArrayList<>();
        for (int n : retained) {
            for (Duration d : latencies) {
                out.add(Plan.nd(n, d));
            }
        }
        return out;
    }
}
