package io.sluice.compare.driver;

import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/** The assertions of {@link ComparisonSmokeITCase}, on result files made up here. */
class SmokeCheckTest {

    static Comparison smoke(UnaryOperator<List<Results.Row>> edit) {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        for (SystemUnderTest s : SystemUnderTest.ALL) {
            Results r = new Results(s.name());
            for (Scenario sc : Scenario.values()) {
                if (sc.optional() && FakeHarness.skipsOptional(s.name())) {
                    r.notRun(sc, "optional");
                } else {
                    FakeHarness.add(r, Plan.smoke(), sc, FakeHarness.factor(s.name()));
                }
            }
            List<Results.Row> rows = s.name().equals("flink-1.14.6") ? edit.apply(r.rows()) : r.rows();
            Map<String, String> headers = new LinkedHashMap<>(Map.of("system", s.name()));
            if (FakeHarness.skipsOptional(s.name())) {
                for (Scenario sc : Scenario.values()) {
                    if (sc.optional()) {
                        headers.put(Results.NOT_RUN_PREFIX + sc.id(), "optional");
                    }
                }
            }
            files.put(s.name(), new Results.Parsed(headers, rows));
        }
        return Comparison.of(SystemUnderTest.ALL.stream().map(SystemUnderTest::name).toList(), files);
    }

    static Results.Row with(Results.Row r, double value) {
        return new Results.Row(r.system(), r.scenario(), r.variant(), r.metric(), value);
    }

    @Test
    void completeResultsPass() {
        assertThat(SmokeCheck.problems(smoke(rows -> rows))).isEmpty();
    }

    @Test
    void aMissingScenarioOrFigureFails() {
        Comparison noThroughput = smoke(rows -> rows.stream().filter(r -> !r.scenario().equals("throughput")).toList());
        assertThat(SmokeCheck.problems(noThroughput)).contains("flink-1.14.6: no rows for scenario throughput",
                "flink-1.14.6: missing Throughput, checkpoints every 500 ms, records_per_s (Sluice reports it)");
        Comparison noReads = smoke(rows -> rows.stream().filter(r -> !r.metric().equals("metadata_reads")).toList());
        assertThat(SmokeCheck.problems(noReads)).hasSize(failoverVariants()).allMatch(p -> p.contains("metadata_reads"));
    }

    @Test
    void nanIsAllowedOnlyForPercentilesOfAVariantWithoutAnsweredQueries() {
        String variant = Plan.smoke().statusJmRestartStalled();
        Comparison noAnswers = smoke(rows -> rows.stream().map(r -> !r.variant().equals(variant) ? r
                : switch (r.metric()) {
                    case "p50_ms", "p99_ms", "max_ms" -> with(r, Double.NaN);
                    case "queries" -> with(r, 0);
                    default -> r;
                }).toList());
        assertThat(SmokeCheck.problems(noAnswers)).isEmpty();

        Comparison nanWithAnswers = smoke(rows -> rows.stream().map(r -> r.variant().equals(variant)
                && r.metric().equals("p99_ms") ? with(r, Double.NaN) : r).toList());
        assertThat(SmokeCheck.problems(nanWithAnswers)).singleElement().asString()
                .contains("p99_ms is NaN although it answered queries");

        Comparison nanThroughput = smoke(rows -> rows.stream().map(r -> r.metric().equals("records_per_s")
                ? with(r, Double.NaN) : r).toList());
        assertThat(SmokeCheck.problems(nanThroughput)).singleElement().asString()
                .isEqualTo("flink-1.14.6: Throughput, checkpoints every 500 ms, records_per_s is NaN");

        Comparison infinite = smoke(rows -> rows.stream().map(r -> r.metric().equals("to_running_ms")
                ? with(r, Double.POSITIVE_INFINITY) : r).toList());
        assertThat(SmokeCheck.problems(infinite)).hasSize(failoverVariants());
    }

    /** The (N, D) variants of task-failover and jm-failover in the smoke plan (flink-1.14.6's rows are edited). */
    private static int failoverVariants() {
        Plan p = Plan.smoke();
        return p.failoverRetained().size() * p.failoverLatencies().size() + p.jmRetained().size() * p.jmLatencies().size();
    }

    @Test
    void anOptionalScenarioMayBeLeftOutOnlyByASystemThatDeclaresIt() {
        // flink-1.13.6 and flink-1.14.6 declare the window scenarios not run (see smoke()): that passes
        assertThat(SmokeCheck.problems(smoke(rows -> rows))).isEmpty();
        // flink-2.3.0 leaving them out without declaring it fails
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        for (SystemUnderTest s : SystemUnderTest.ALL) {
            Results r = new Results(s.name());
            for (Scenario sc : Scenario.values()) {
                if (!sc.optional() || s.name().equals("sluice")) {
                    FakeHarness.add(r, Plan.smoke(), sc, FakeHarness.factor(s.name()));
                }
            }
            files.put(s.name(), new Results.Parsed(Map.of("system", s.name()), r.rows()));
        }
        Comparison c = Comparison.of(SystemUnderTest.ALL.stream().map(SystemUnderTest::name).toList(), files);
        assertThat(SmokeCheck.problems(c)).contains("flink-2.3.0: no rows for scenario window-session")
                .anyMatch(p -> p.startsWith("flink-1.20.5: missing Tumbling 1 s event-time window sum"));
    }

    @Test
    void aSystemWithoutAFileFails() {
        Comparison c = Comparison.of(List.of("sluice", "flink-1.13.6"), Map.of());
        assertThat(SmokeCheck.problems(c)).contains("sluice: no result file", "flink-1.13.6: no result file",
                "flink-1.13.6: no rows for scenario throughput");
    }
}
