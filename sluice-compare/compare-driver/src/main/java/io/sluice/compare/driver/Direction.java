package io.sluice.compare.driver;

import io.sluice.compare.Scenario.Metric;

import java.util.Set;

/** Which way a metric is better, from its name (units and meaning are in the name). */
public enum Direction {
    /**
     * Times ({@code *_ms}), counts of bad events (over_1s, metadata_reads, unanswered, errors, duplicates) and
     * bytes a checkpoint uploads (upload_bytes_p50, upload_fraction_p50, failover_upload_bytes).
     */
    LOWER("lower"),
    /** Rates ({@code *_per_s}, e.g. records_per_s, and {@code *_per_cpu_s}, per CPU-second). */
    HIGHER("higher"),
    /** Counts that describe the run rather than rate it (checkpoints, runs, queries, …), and unknown metrics. */
    NEUTRAL("—");

    /** Counts of bad events: fewer is better. */
    private static final Set<String> LOWER_COUNTS = Set.of(Metric.OVER_1S, Metric.METADATA_READS,
            Metric.UNANSWERED, Metric.ERRORS, Metric.DUPLICATES, Metric.UPLOAD_BYTES_P50, Metric.UPLOAD_FRACTION_P50,
            Metric.FAILOVER_UPLOAD_BYTES, Metric.UPLOAD_PER_CHANGED_BYTE, Metric.UPLOAD_P50_PER_CHANGED_BYTE,
            Metric.UPLOAD_BYTES_MEAN);

    /** How far (as a fraction) Sluice must trail a Flink version to be listed as behind it. */
    public static final double BEHIND_MARGIN = 0.10;

    private final String label;

    Direction(String label) {
        this.label = label;
    }

    /** "lower", "higher" or "—". */
    public String label() {
        return label;
    }

    public static Direction of(String metric) {
        if (metric.endsWith("_ms") || LOWER_COUNTS.contains(metric)) {
            return LOWER;
        }
        if (metric.endsWith("_per_s") || metric.endsWith("_per_cpu_s")) {
            return HIGHER;
        }
        return NEUTRAL;
    }

    /**
     * Whether {@code sluice} is worse than {@code flink} by more than {@link #BEHIND_MARGIN}: for
     * LOWER, sluice &gt; 1.1 × flink; for HIGHER, sluice &lt; 0.9 × flink; never for NEUTRAL. NaN (no
     * figure, e.g. no query answered) counts as the worst possible value, so a NaN for Sluice against
     * a number for Flink is behind, and a NaN for Flink never is.
     */
    public boolean behind(double sluice, double flink) {
        return switch (this) {
            case LOWER -> {
                double s = Double.isNaN(sluice) ? Double.POSITIVE_INFINITY : sluice;
                double f = Double.isNaN(flink) ? Double.POSITIVE_INFINITY : flink;
                yield s > f && s > f * (1 + BEHIND_MARGIN);
            }
            case HIGHER -> {
                double s = Double.isNaN(sluice) ? Double.NEGATIVE_INFINITY : sluice;
                double f = Double.isNaN(flink) ? Double.NEGATIVE_INFINITY : flink;
                yield s < f && s < f * (1 - BEHIND_MARGIN);
            }
            case NEUTRAL -> false;
        };
    }
}
