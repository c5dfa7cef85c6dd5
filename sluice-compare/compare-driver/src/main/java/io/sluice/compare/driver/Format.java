package io.sluice.compare.driver;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;

/** Number formatting of the report and the chart: fixed rules, {@link Locale#ROOT}, so output is reproducible. */
public final class Format {
    private Format() {}

    /** Shown for a value the result file does not have. */
    public static final String MISSING = "missing";
    /** Shown for NaN: the harness had no figure (e.g. no status query was answered). */
    public static final String NOT_AVAILABLE = "n/a";
    /** Shown for a ratio whose Flink value is 0. */
    public static final String NO_RATIO = "—";

    /**
     * A measured value: whole numbers with thousands separators ("1,234"); others with about three
     * significant digits ("206", "46.7", "5.21", "0.0426"); NaN as "n/a"; null as "missing".
     */
    public static String value(Double v) {
        if (v == null) {
            return MISSING;
        }
        if (v.isNaN()) {
            return NOT_AVAILABLE;
        }
        if (v.isInfinite()) {
            return v > 0 ? "∞" : "-∞";
        }
        double a = Math.abs(v);
        if (v == Math.rint(v) || a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return significant(v, 3);
    }

    /**
     * {@code numerator ÷ denominator} as "0.05x", "2.60x", "14.2x", "2,500x" (two significant digits
     * below 1); "—" if the denominator is 0; "n/a" if either is NaN; "missing" if either is null.
     */
    public static String ratio(Double numerator, Double denominator) {
        if (numerator == null || denominator == null) {
            return MISSING;
        }
        if (numerator.isNaN() || denominator.isNaN() || numerator.isInfinite() || denominator.isInfinite()) {
            return NOT_AVAILABLE;
        }
        if (denominator == 0) {
            return NO_RATIO;
        }
        return ratio(numerator / denominator);
    }

    /** A ratio value as in {@link #ratio(Double, Double)}. */
    public static String ratio(double r) {
        double a = Math.abs(r);
        String s;
        if (a == 0) {
            s = "0";
        } else if (a >= 100) {
            s = String.format(Locale.ROOT, "%,.0f", r);
        } else if (a >= 10) {
            s = String.format(Locale.ROOT, "%.1f", r);
        } else if (a >= 0.995) {
            s = String.format(Locale.ROOT, "%.2f", r);
        } else {
            s = significant(r, 2);
            if (s.length() < 4) { // "0.5" -> "0.50": keep two decimals like the other ratios
                s = String.format(Locale.ROOT, "%.2f", r);
            }
        }
        return s + "x";
    }

    private static String significant(double v, int digits) {
        return new BigDecimal(v).round(new MathContext(digits, RoundingMode.HALF_EVEN)).stripTrailingZeros()
                .toPlainString();
    }
}
