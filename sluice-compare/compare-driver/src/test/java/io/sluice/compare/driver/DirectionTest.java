package io.sluice.compare.driver;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DirectionTest {

    @Test
    void directionFollowsTheMetricName() {
        for (String m : new String[] {"p50_ms", "p99_ms", "max_ms", "to_running_ms", "first_status_ms",
                "status_p99_ms", "duration_p50_ms", "over_1s", "metadata_reads", "unanswered", "errors"}) {
            assertThat(Direction.of(m)).as(m).isEqualTo(Direction.LOWER);
        }
        assertThat(Direction.of("records_per_s")).isEqualTo(Direction.HIGHER);
        assertThat(Direction.of("records_per_cpu_s")).isEqualTo(Direction.HIGHER);
        for (String m : new String[] {"checkpoints", "runs", "queries", "restored_state", "state_bytes", "whatever"}) {
            assertThat(Direction.of(m)).as(m).isEqualTo(Direction.NEUTRAL);
        }
    }

    @Test
    void behindMeansWorseByMoreThanTenPercent() {
        assertThat(Direction.LOWER.behind(111, 100)).isTrue();
        assertThat(Direction.LOWER.behind(110, 100)).isFalse();
        assertThat(Direction.LOWER.behind(50, 100)).isFalse();
        assertThat(Direction.LOWER.behind(1, 0)).isTrue();
        assertThat(Direction.LOWER.behind(0, 0)).isFalse();
        assertThat(Direction.HIGHER.behind(89, 100)).isTrue();
        assertThat(Direction.HIGHER.behind(90, 100)).isFalse();
        assertThat(Direction.HIGHER.behind(200, 100)).isFalse();
        assertThat(Direction.NEUTRAL.behind(1, 1000)).isFalse();
    }

    @Test
    void noFigureCountsAsTheWorstValue() {
        assertThat(Direction.LOWER.behind(Double.NaN, 5)).isTrue();
        assertThat(Direction.LOWER.behind(5, Double.NaN)).isFalse();
        assertThat(Direction.LOWER.behind(Double.NaN, Double.NaN)).isFalse();
        assertThat(Direction.HIGHER.behind(Double.NaN, 5)).isTrue();
        assertThat(Direction.HIGHER.behind(5, Double.NaN)).isFalse();
    }
}
