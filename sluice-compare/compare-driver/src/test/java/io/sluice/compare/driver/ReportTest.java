package io.sluice.compare.driver;

import io.sluice.compare.Results;
import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static io.sluice.compare.driver.ComparisonTest.parsed;
import static org.assertj.core.api.Assertions.assertThat;

class ReportTest {
    static final List<String> SYSTEMS = List.of("sluice", "flink-1.13.6", "flink-1.14.6", "flink-1.20.5");
    static final String OPTIONS = "-Xmx2g -XX:+UseG1GC -Djdk.net.hosts.file=/x/hosts";

    static Map<String, String> machine(String jvmOptions) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("cores", "2");
        h.put("memory", "24607732 kB");
        h.put("cpu", "Test CPU @ 2.0GHz");
        h.put("jvm", "OpenJDK 64-Bit Server VM 17.0.15+6");
        h.put("max-heap-mib", "2048");
        h.put("jvm-options", jvmOptions);
        h.put("os", "Linux 6.1 amd64");
        h.put("plan", "mode=full keys=1024");
        h.put("started", "2026-11-30T10:00:00Z");
        return h;
    }

    /** Sluice trails flink-1.14.6 on failover time and flink-1.13.6 on throughput; no status query answered. */
    static Comparison sample(String flink120Options) {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        files.put("sluice", parsed("sluice", machine(OPTIONS),
                "task-failover", "N=1, D=0 ms", "to_running_ms", 5,
                "task-failover", "N=1, D=0 ms", "metadata_reads", 0,
                "throughput", "checkpoints every 1000 ms", "records_per_s", 40_000_000,
                "throughput", "checkpoints every 1000 ms", "runs", 3,
                "status-during-stall", "task failover, storage stalled", "p99_ms", Double.NaN,
                "status-during-stall", "task failover, storage stalled", "queries", 0));
        files.put("flink-1.13.6", parsed("flink-1.13.6", machine(OPTIONS),
                "task-failover", "N=1, D=0 ms", "to_running_ms", 100,
                "task-failover", "N=1, D=0 ms", "metadata_reads", 0,
                "throughput", "checkpoints every 1000 ms", "records_per_s", 50_000_000,
                "throughput", "checkpoints every 1000 ms", "runs", 3,
                "status-during-stall", "task failover, storage stalled", "p99_ms", 10,
                "status-during-stall", "task failover, storage stalled", "queries", 1000));
        files.put("flink-1.14.6", parsed("flink-1.14.6", machine(OPTIONS),
                "task-failover", "N=1, D=0 ms", "to_running_ms", 4,
                "task-failover", "N=1, D=0 ms", "metadata_reads", 0,
                "throughput", "checkpoints every 1000 ms", "records_per_s", 30_000_000,
                "throughput", "checkpoints every 1000 ms", "runs", 3,
                "status-during-stall", "task failover, storage stalled", "p99_ms", 10,
                "status-during-stall", "task failover, storage stalled", "queries", 1000));
        files.put("flink-1.20.5", parsed("flink-1.20.5", machine(flink120Options),
                "task-failover", "N=1, D=0 ms", "to_running_ms", 4.6,
                "task-failover", "N=1, D=0 ms", "metadata_reads", 0,
                "throughput", "checkpoints every 1000 ms", "runs", 3,
                "status-during-stall", "task failover, storage stalled", "p99_ms", 10,
                "status-during-stall", "task failover, storage stalled", "queries", 1000));
        return Comparison.of(SYSTEMS, files);
    }

    static Report.RunInfo run(String mode, List<String> problems) {
        return new Report.RunInfo("2026-11-30 12:00 UTC", "sluice-compare/run-comparison", mode, "comparison.svg",
                problems);
    }

    @Test
    void oneTablePerScenarioWithValuesAndRatiosPerFlinkVersion() {
        String md = new Report(sample(OPTIONS), run("full", List.of())).body();

        assertThat(md).contains("#### Task failover (`task-failover`)\n\n"
                + "| variant | metric | better | sluice | flink-1.13.6 | sluice ÷ flink-1.13.6 | flink-1.14.6"
                + " | sluice ÷ flink-1.14.6 | flink-1.20.5 | sluice ÷ flink-1.20.5 |\n"
                + "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n"
                + "| N=1, D=0 ms | to_running_ms | lower | 5 | 100 | 0.05x | 4 | **1.25x** | 4.60 | 1.09x |\n"
                + "| N=1, D=0 ms | metadata_reads | lower | 0 | 0 | — | 0 | — | 0 | — |\n");
        assertThat(md).contains("| checkpoints every 1000 ms | records_per_s | higher | 40,000,000 | 50,000,000"
                + " | **0.80x** | 30,000,000 | 1.33x | missing | missing |\n");
        assertThat(md).contains("| checkpoints every 1000 ms | runs | — | 3 | 3 | 1.00x | 3 | 1.00x | 3 | 1.00x |\n");
        assertThat(md).contains("| task failover, storage stalled | p99_ms | lower | n/a | 10 | **n/a** | 10"
                + " | **n/a** | 10 | **n/a** |\n");
        // scenarios in Scenario order
        assertThat(md.indexOf("#### Status latency")).isLessThan(md.indexOf("#### Task failover"));
        assertThat(md.indexOf("#### Task failover")).isLessThan(md.indexOf("#### Throughput"));
    }

    @Test
    void listsEveryFigureWhereSluiceIsBehindByMoreThanTenPercent() {
        Report report = new Report(sample(OPTIONS), run("full", List.of()));
        assertThat(report.behind()).extracting(b -> b.key().metric() + " " + b.others().keySet())
                .containsExactly("p99_ms [flink-1.13.6, flink-1.14.6, flink-1.20.5]",
                        "to_running_ms [flink-1.14.6]", "records_per_s [flink-1.13.6]");
        String md = report.body();
        assertThat(md).contains("**Sluice is behind on 3 figures:**\n\n"
                + "- Status latency while storage or ZooKeeper stalls during recovery, task failover, storage"
                + " stalled, `p99_ms` (lower is better): Sluice n/a vs flink-1.13.6 10 (n/a), flink-1.14.6 10"
                + " (n/a), flink-1.20.5 10 (n/a)\n"
                + "- Task failover, N=1, D=0 ms, `to_running_ms` (lower is better): Sluice 5 vs flink-1.14.6 4"
                + " (1.25x)\n"
                + "- Throughput, checkpoints every 1000 ms, `records_per_s` (higher is better): Sluice 40,000,000"
                + " vs flink-1.13.6 50,000,000 (0.80x)\n");
    }

    @Test
    void saysPlainlyWhenSluiceIsNowhereBehind() {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        files.put("sluice", parsed("sluice", machine(OPTIONS), "task-failover", "N=1, D=0 ms", "to_running_ms", 5));
        files.put("flink-1.13.6", parsed("flink-1.13.6", machine(OPTIONS),
                "task-failover", "N=1, D=0 ms", "to_running_ms", 5.5));
        String md = new Report(Comparison.of(List.of("sluice", "flink-1.13.6"), files), run("full", List.of()))
                .body();
        assertThat(md).contains("**None.** On every compared figure Sluice is better than, or within 10% of,"
                + " every Flink version in this run.");
    }

    @Test
    void describesTheRunBeforeTheTables() {
        String md = new Report(sample(OPTIONS), run("full", List.of())).body();
        assertThat(md).startsWith("### How this was run\n\n| | |\n| --- | --- |\n"
                + "| date | 2026-11-30 12:00 UTC |\n"
                + "| command | `sluice-compare/run-comparison` |\n"
                + "| plan | `mode=full keys=1024` |\n"
                + "| machine | 2 cores, 23.5 GiB memory, Test CPU @ 2.0GHz, Linux 6.1 amd64 |\n"
                + "| JVM | OpenJDK 64-Bit Server VM 17.0.15+6 |\n"
                + "| JVM options (every system) | `" + OPTIONS + "` |\n");
        assertThat(md).contains("| sluice | 6 | 2026-11-30T10:00:00Z |\n| flink-1.13.6 | 6 |");
        assertThat(md).doesNotContain("Warning").doesNotContain("Smoke run");
        assertThat(md).contains("![Sluice ÷ Apache Flink, headline figures, log scale](comparison.svg)");
        assertThat(md.indexOf("### How this was run")).isLessThan(md.indexOf("### Where Sluice is behind"));
        assertThat(md.indexOf("### Where Sluice is behind")).isLessThan(md.indexOf("### Results by scenario"));
    }

    @Test
    void warnsWhenTheSystemsJvmOptionsDiffer() {
        String md = new Report(sample("-Xmx4g"), run("full", List.of())).body();
        assertThat(md).contains("> **Warning:** header `jvm-options` differs between the systems, so they did not"
                + " run under the same conditions:\n>\n> - sluice: `" + OPTIONS + "`\n");
        assertThat(md).contains("> - flink-1.20.5: `-Xmx4g`\n");
    }

    @Test
    void listsFailuresAndMissingFiguresAndMarksSmokeRuns() {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        files.put("sluice", parsed("sluice", machine(OPTIONS), "task-failover", "N=1, D=0 ms", "to_running_ms", 5));
        Comparison c = Comparison.of(List.of("sluice", "flink-1.13.6"), files);
        String md = new Report(c, run("smoke", List.of("flink-1.13.6: timed out after 10m 00s and was stopped")))
                .body();
        assertThat(md).startsWith("> **Smoke run.**");
        assertThat(md).contains("### Problems in this run\n\n- flink-1.13.6: timed out after 10m 00s and was"
                + " stopped\n");
        assertThat(md).contains("| flink-1.13.6 | no result file | — |");
        assertThat(md).contains("Cannot say: there are no Flink results in this run.");
        assertThat(md).contains("| N=1, D=0 ms | to_running_ms | lower | 5 | missing | missing |");
    }

    @Test
    void namesFiguresSomeSystemsDidNotReport() {
        String md = new Report(sample(OPTIONS), run("full", List.of())).body();
        assertThat(md).contains("- figures some systems did not report (shown as \"missing\" in the tables):\n"
                + "  - Throughput, checkpoints every 1000 ms, records_per_s: flink-1.20.5\n");
    }

    @Test
    void sameInputSameOutput() {
        String a = new Report(sample(OPTIONS), run("full", List.of())).document();
        String b = new Report(sample(OPTIONS), run("full", List.of())).document();
        assertThat(a).isEqualTo(b).startsWith("# Sluice and Apache Flink side by side\n\n");
    }

    @Test
    void anOptionalScenarioASystemDeclaredNotRunReadsNotAvailableAndIsNeitherMissingNorBehind() {
        Map<String, Results.Parsed> files = new LinkedHashMap<>();
        files.put("sluice", parsed("sluice", machine(OPTIONS),
                "window-session", "parallelism 2, checkpoints every 1000 ms", "records_per_s", 500_000));
        Map<String, String> skipped = machine(OPTIONS);
        skipped.put(Results.NOT_RUN_PREFIX + "window-session", "optional scenario, not run on Flink 1.13.6");
        files.put("flink-1.13.6", parsed("flink-1.13.6", skipped));
        files.put("flink-1.20.5", parsed("flink-1.20.5", machine(OPTIONS),
                "window-session", "parallelism 2, checkpoints every 1000 ms", "records_per_s", 1_000_000));
        Comparison c = Comparison.of(List.of("sluice", "flink-1.13.6", "flink-1.20.5"), files);
        String md = new Report(c, run("full", List.of())).body();

        assertThat(md).contains("| parallelism 2, checkpoints every 1000 ms | records_per_s | higher | 500,000 | n/a"
                + " | n/a | 1,000,000 | **0.50x** |")
                .contains("`not-run window-session`: optional scenario, not run on Flink 1.13.6")
                .doesNotContain("did not report")
                .contains("Sluice 500,000 vs flink-1.20.5 1,000,000 (0.50x)\n");
        assertThat(Chart.svg(c)).contains("flink-1.13.6: n/a (not run)");
    }
}
