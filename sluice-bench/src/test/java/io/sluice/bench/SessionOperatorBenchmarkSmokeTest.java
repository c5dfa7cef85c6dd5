package io.sluice.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The operator-level session benchmark on a small input: it checkpoints and sessions fire; never how fast. */
class SessionOperatorBenchmarkSmokeTest {
    @Test
    void sessionsFireAndCheckpointsAreWritten() throws Exception {
        // 600,000 records span 15 s of event time: nearly every key's first session (ending by 15 s) has fired.
        SessionOperatorBenchmark.Figures f = SessionOperatorBenchmark.run(600_000, 150_000);
        assertThat(f.checkpoints()).isEqualTo(4);
        assertThat(f.bytes()).isPositive();
        assertThat(f.results()).isGreaterThanOrEqualTo(90_000);
        assertThat(f.recordsPerCpuSecond()).isPositive();
    }
}
