package io.sluice.compare.sluice;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which measured runs of a throughput scenario count, and when one more is made. */
class ThroughputRunsTest {
    private static Throughput.Run run(boolean restarted, long records) {
        return new Throughput.Run(records, records, 1, restarted, records, 0, 2);
    }

    @Test
    void aRunThatRestartedOrTookInNoRecordIsInvalidAndSaysWhy() {
        assertThat(run(false, 10).valid()).isTrue();
        assertThat(run(false, 10).invalidity()).isEmpty();
        assertThat(run(true, 10).valid()).isFalse();
        assertThat(run(true, 10).invalidity()).isEqualTo("; INVALID: the job restarted");
        assertThat(run(false, 0).valid()).isFalse();
        assertThat(run(false, 0).invalidity()).contains("took in no record in the window");
    }

    @Test
    void oneMoreRunIsMadeOnlyWhenNoPlannedRunWasValid() {
        List<Throughput.Run> runs = new ArrayList<>();
        assertThat(Throughput.anotherRun(0, 1, runs)).as("the planned run").isTrue();
        runs.add(run(false, 0));
        assertThat(Throughput.anotherRun(1, 1, runs)).as("none valid: one more").isTrue();
        runs.add(run(false, 0));
        assertThat(Throughput.anotherRun(2, 1, runs)).as("only one more").isFalse();

        List<Throughput.Run> good = new ArrayList<>(List.of(run(false, 5)));
        assertThat(Throughput.anotherRun(1, 1, good)).as("a valid run: no more").isFalse();
        List<Throughput.Run> someValid = new ArrayList<>(List.of(run(true, 5), run(false, 5)));
        assertThat(Throughput.anotherRun(2, 3, someValid)).as("the plan's runs are all made").isTrue();
        someValid.add(run(false, 0));
        assertThat(Throughput.anotherRun(3, 3, someValid)).isFalse();
        assertThat(Throughput.runLabel(1, 1)).isEqualTo("run 1/1");
        assertThat(Throughput.runLabel(2, 1)).isEqualTo("one more run (none of the 1 was valid)");
    }
}
