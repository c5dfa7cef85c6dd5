package io.sluice.bench.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The many-jobs benchmark in smoke mode: every job runs and ends CANCELED, and the figures are printed; never how fast. */
class ManyJobsBenchmarkSmokeTest {
    @Test
    void everyIdleJobRunsAndIsCancelledAndTheFiguresArePrinted() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<ManyJobsBenchmark.Round> rounds;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            rounds = ManyJobsBenchmark.run(ManyJobsBenchmark.Options.smoke(), out);
        }
        String output = bytes.toString(StandardCharsets.UTF_8);
        assertThat(rounds).as(output).extracting(ManyJobsBenchmark.Round::jobs).containsExactly(0, 4);
        assertThat(rounds).allSatisfy(r -> {
            assertThat(r.running()).isEqualTo(r.jobs());
            assertThat(r.cancelled()).isEqualTo(r.jobs());
        });
        assertThat(rounds.get(1).threadsAfter()).as("each running job has threads of its own")
                .isGreaterThan(rounds.get(1).threadsBefore());
        assertThat(output).contains("MEDIAN     0 jobs over 1 round(s)").contains("MEDIAN     4 jobs over 1 round(s)")
                .contains("class histogram, growth per idle job (4 jobs)").contains("the 25 io.sluice classes that grew most:");
    }

    @Test
    void parsesJobCountsAndRounds() {
        ManyJobsBenchmark.Options o = ManyJobsBenchmark.parse(new String[] {"--jobs", "0,100", "--rounds", "2", "--histogram"});
        assertThat(o.jobCounts()).containsExactly(0, 100);
        assertThat(o.rounds()).isEqualTo(2);
        assertThat(o.histogram()).isTrue();
        assertThat(ManyJobsBenchmark.parse(new String[0]).jobCounts()).containsExactly(0, 500, 1_000);
    }
}
