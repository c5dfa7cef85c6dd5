package io.sluice.bench.recovery;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The many-jobs recovery benchmark in smoke mode (4 jobs): every job is recovered with its one
 * metadata read, never more reads in flight than the bound, status answered all along, the figures
 * printed; never how fast (the build machine is shared).
 */
class ManyJobsRecoveryBenchmarkSmokeTest {
    @Test
    void fourJobsRecoverWithinTheReadBoundAndTheFiguresArePrinted() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<ManyJobsRecoveryBenchmark.Round> rounds;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            rounds = ManyJobsRecoveryBenchmark.run(ManyJobsRecoveryBenchmark.Options.smoke(), out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(rounds).as(output).singleElement().satisfies(r -> {
            assertThat(r.jobs()).isEqualTo(4);
            assertThat(r.reads()).as("the latest checkpoint's metadata of every job, once").isEqualTo(4);
            assertThat(r.maxReadsInFlight()).isBetween(1, r.maxReads());
            assertThat(r.status().count()).isPositive().isEqualTo(r.list().count());
        });
        assertThat(output).contains("MEDIAN     4 jobs over 1 round(s)");
    }

    @Test
    void parsesJobCountsAndRounds() {
        ManyJobsRecoveryBenchmark.Options o = ManyJobsRecoveryBenchmark.parse(new String[] {"--jobs", "100,1000", "--rounds", "2"});
        assertThat(o.jobCounts()).containsExactly(100, 1_000);
        assertThat(o.rounds()).isEqualTo(2);
        assertThat(ManyJobsRecoveryBenchmark.parse(new String[0]).jobCounts()).containsExactly(100, 1_000);
    }
}
