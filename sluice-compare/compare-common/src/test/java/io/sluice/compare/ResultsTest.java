package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsTest {

    @Test
    void writesAndReadsBackHeadersAndRows(@TempDir Path dir) {
        Results r = new Results("flink-1.20.5").header("cores", "2").header("note", "tabs\tand\nnewlines are flattened");
        r.add(Scenario.TASK_FAILOVER, "N=1, D=0 ms", Scenario.Metric.TO_RUNNING_MS, 12.3456789)
                .add(Scenario.TASK_FAILOVER, "N=1, D=0 ms", Scenario.Metric.METADATA_READS, 0)
                .add(Scenario.STATUS_DURING_STALL, "x", Scenario.Metric.P99_MS, Double.NaN);
        Path file = dir.resolve("out/r.tsv");
        r.write(file);

        Results.Parsed p = Results.read(file);
        assertThat(p.headers()).containsEntry("system", "flink-1.20.5").containsEntry("cores", "2")
                .containsEntry("note", "tabs and newlines are flattened");
        assertThat(p.rows()).hasSize(3);
        assertThat(p.rows().get(0)).isEqualTo(new Results.Row("flink-1.20.5", "task-failover", "N=1, D=0 ms",
                "to_running_ms", 12.3457));
        assertThat(p.rows().get(1).value()).isZero();
        assertThat(p.rows().get(2).value()).isNaN();
    }

    @Test
    void rewritingReplacesTheFileWithTheRowsSoFar(@TempDir Path dir) {
        Path file = dir.resolve("r.tsv");
        Results r = new Results("sluice");
        r.add(Scenario.THROUGHPUT, "v", Scenario.Metric.RECORDS_PER_S, 1e7).write(file);
        r.add(Scenario.THROUGHPUT, "v", Scenario.Metric.RUNS, 3).write(file);
        assertThat(Results.read(file).rows()).extracting(Results.Row::metric).containsExactly("records_per_s", "runs");
    }

    @Test
    void aMalformedRowIsReportedWithItsLineNumber(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bad.tsv");
        Files.writeString(file, "# system\tsluice\nsluice\tthroughput\tonly three\n");
        assertThatThrownBy(() -> Results.read(file)).hasMessageContaining("bad.tsv:2")
                .hasMessageContaining("expected 5 tab-separated fields, found 3");
    }
}
