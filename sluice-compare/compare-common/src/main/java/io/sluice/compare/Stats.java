package io.sluice.compare;

import java.util.Arrays;
import java.util.List;

/** Medians and percentiles. */
public final class Stats {
    private Stats() {}

    /** Nearest-rank percentile of a sorted array. */
    public static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Median (mean of the two middle values for an even count); NaN for no values. */
    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    public static double median(List<? extends Number> values) {
        return median(values.stream().mapToDouble(Number::doubleValue).toArray());
    }
}
