package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.bench.NetworkThroughputBenchmark.Options;
import io.sluice.bench.NetworkThroughputBenchmark.Result;
import io.sluice.bench.ThroughputBenchmark.Run;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Runs the in-memory vs TCP harness in smoke mode. Asserts that both count and that data crossed TCP, never how fast. */
class NetworkThroughputBenchmarkSmokeTest {
    @Test
    void smokeModeCountsOverBothExchangesAndPrintsTheRatio() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Result result;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            result = NetworkThroughputBenchmark.run(Options.smoke(), out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(result.inMemory().runs()).as(output).hasSize(1).allMatch(Run::valid)
                .allSatisfy(r -> assertThat(r.records()).isPositive());
        assertThat(result.overTcp().runs()).as(output).hasSize(1).allMatch(Run::valid)
                .allSatisfy(r -> assertThat(r.records()).isPositive());
        assertThat(result.tcpTraffic()).as(output).hasSize(2);
        assertThat(output).contains("MEDIAN in memory").contains("MEDIAN over TCP").contains("RATIO TCP / memory")
                .doesNotContain("sent 0 buffers");
    }

    @Test
    void parsesOptions() {
        Options o = NetworkThroughputBenchmark.parse(new String[] {"--seconds", "4", "--runs", "7", "--config", "off"});
        assertThat(o.window()).isEqualTo(Duration.ofSeconds(4));
        assertThat(o.warmup()).isEqualTo(Duration.ofSeconds(4));
        assertThat(o.measuredRuns()).isEqualTo(7);
        assertThat(o.config()).isEqualTo(ThroughputBenchmark.Config.CHECKPOINTS_OFF);
    }
}
