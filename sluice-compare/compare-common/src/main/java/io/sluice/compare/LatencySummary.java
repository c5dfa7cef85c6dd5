package io.sluice.compare;

import java.util.Arrays;

/**
 * Latencies of status queries: percentiles by nearest rank, the count slower than one second, and
 * how many were still unanswered when the window ended (their latency is counted as the time they
 * had waited by then, a lower bound).
 */
public record LatencySummary(int queries, double p50Ms, double p99Ms, double maxMs, int over1s, int unanswered,
                             int errors) {

    public static LatencySummary of(long[] nanos, int unanswered, int errors) {
        if (nanos.length == 0) {
            return new LatencySummary(0, Double.NaN, Double.NaN, Double.NaN, 0, unanswered, errors);
        }
        long[] s = nanos.clone();
        Arrays.sort(s);
        int over = 0;
        for (long v : s) {
            if (v > 1_000_000_000L) {
                over++;
            }
        }
        return new LatencySummary(s.length, ms(Stats.percentile(s, 50)), ms(Stats.percentile(s, 99)),
                ms(s[s.length - 1]), over, unanswered, errors);
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /** Adds the status-scenario metrics of this summary to {@code results}. */
    public void addTo(Results results, Scenario scenario, String variant) {
        results.add(scenario, variant, Scenario.Metric.P50_MS, p50Ms)
                .add(scenario, variant, Scenario.Metric.P99_MS, p99Ms)
                .add(scenario, variant, Scenario.Metric.MAX_MS, maxMs)
                .add(scenario, variant, Scenario.Metric.OVER_1S, over1s)
                .add(scenario, variant, Scenario.Metric.QUERIES, queries)
                .add(scenario, variant, Scenario.Metric.UNANSWERED, unanswered)
                .add(scenario, variant, Scenario.Metric.ERRORS, errors);
    }

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT, "%d queries: p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d over 1 s,"
                + " %d unanswered at the end, %d errors", queries, p50Ms, p99Ms, maxMs, over1s, unanswered, errors);
    }
}
