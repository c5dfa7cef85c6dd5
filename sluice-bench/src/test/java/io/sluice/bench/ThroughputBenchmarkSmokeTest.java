package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.ThroughputBenchmark.ConfigResult;
import io.sluice.bench.ThroughputBenchmark.Options;
import io.sluice.bench.ThroughputBenchmark.Run;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs the harness in smoke mode with 1-second windows. Asserts that it counts, never how fast. */
class ThroughputBenchmarkSmokeTest {
    @Test
    void smokeModeCountsRecordsAndPrintsMedians() throws Exception {
        Options smoke = Options.smoke();
        Options options = new Options(Duration.ofSeconds(1), Duration.ofSeconds(1), smoke.measuredRuns(), smoke.configs());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<ConfigResult> results;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            results = ThroughputBenchmark.run(options, out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(results).hasSize(ThroughputBenchmark.Config.values().length);
        for (ConfigResult r : results) {
            assertThat(r.runs()).as(output).hasSize(1);
            assertThat(r.runs()).as(output).allSatisfy(run -> assertThat(run.records()).isPositive());
            assertThat(r.runs()).as(output).allMatch(Run::valid);
        }
        assertThat(output).contains("MEDIAN checkpoints every 1 s").contains("MEDIAN checkpointing off");
    }

    @Test
    void parsesSmokeAndSeconds() {
        Options o = ThroughputBenchmark.parse(new String[] {"--smoke"});
        assertThat(o.window()).isEqualTo(Duration.ofSeconds(2));
        assertThat(o.measuredRuns()).isEqualTo(1);
        o = ThroughputBenchmark.parse(new String[] {"--seconds", "5"});
        assertThat(o.window()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.warmup()).isEqualTo(Duration.ofSeconds(5));
        assertThat(o.measuredRuns()).isEqualTo(3);
    }
}
