package io.sluice.compare;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencySummaryTest {

    @Test
    void percentilesByNearestRankAndCountsOverOneSecond() {
        long[] nanos = new long[100];
        for (int i = 0; i < 100; i++) {
            nanos[i] = (i + 1) * 1_000_000L; // 1 .. 100 ms
        }
        nanos[99] = 2_500_000_000L; // one query took 2.5 s
        LatencySummary s = LatencySummary.of(nanos, 1, 2);
        assertThat(s.queries()).isEqualTo(100);
        assertThat(s.p50Ms()).isEqualTo(50.0);
        assertThat(s.p99Ms()).isEqualTo(99.0);
        assertThat(s.maxMs()).isEqualTo(2500.0);
        assertThat(s.over1s()).isEqualTo(1);
        assertThat(s.unanswered()).isEqualTo(1);
        assertThat(s.errors()).isEqualTo(2);
    }

    @Test
    void noQueriesGiveNaNPercentiles() {
        LatencySummary s = LatencySummary.of(new long[0], 0, 0);
        assertThat(s.queries()).isZero();
        assertThat(s.p99Ms()).isNaN();
    }

    @Test
    void addsEveryStatusMetric() {
        Results r = new Results("sluice");
        LatencySummary.of(new long[] {1_000_000}, 0, 0).addTo(r, Scenario.STATUS_DURING_STALL, "v");
        assertThat(r.rows()).extracting(Results.Row::metric).containsExactly("p50_ms", "p99_ms", "max_ms", "over_1s",
                "queries", "unanswered", "errors");
    }
}
