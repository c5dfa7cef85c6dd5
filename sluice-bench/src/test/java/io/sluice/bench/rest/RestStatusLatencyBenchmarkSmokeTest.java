package io.sluice.bench.rest;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Runs the REST status benchmark in smoke mode (tiny counts). Asserts only counts and the status of
 * every answer, never timing: the build machine is shared, timing belongs to the real run
 * (docs/benchmarks.md).
 */
class RestStatusLatencyBenchmarkSmokeTest {

    @Test
    void bothScenariosCompleteAndEveryAnswerHasTheExpectedStatus() throws Exception {
        RestStatusLatencyBenchmark.Settings s = RestStatusLatencyBenchmark.Settings.smoke();
        RestStatusLatencyBenchmark.Result r = RestStatusLatencyBenchmark.run(s);
        RestStatusLatencyBenchmark.print(r, true);
        assertThat(r.running().requests()).isEqualTo(s.measuredRequests());
        assertThat(r.running().expectedStatusAnswers()).as("every answer RUNNING").isEqualTo(s.measuredRequests());
        assertThat(r.hung().requests()).isEqualTo(s.measuredRequests());
        assertThat(r.hung().expectedStatusAnswers()).as("every answer INITIALIZING").isEqualTo(s.measuredRequests());
    }
}
