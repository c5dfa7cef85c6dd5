package io.sluice.compare.sluice;

import java.io.PrintStream;
import java.util.Locale;

/**
 * The harness's progress lines on stdout, {@code [sluice] <scenario> <variant>: <what>}, and its
 * problems on stderr with the same prefix. Harness thread only.
 */
final class Progress {
    private final PrintStream out;
    private final PrintStream err;

    Progress(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    /** One progress line; {@code format} uses {@link Locale#ROOT}. */
    void line(String scenario, String variant, String format, Object... args) {
        out.println("[sluice] " + scenario + (variant.isEmpty() ? "" : " " + variant) + ": "
                + String.format(Locale.ROOT, format, args));
        out.flush();
    }

    void info(String format, Object... args) {
        out.println("[sluice] " + String.format(Locale.ROOT, format, args));
        out.flush();
    }

    void problem(String format, Object... args) {
        err.println("[sluice] " + String.format(Locale.ROOT, format, args));
        err.flush();
    }

    void problem(Throwable t) {
        t.printStackTrace(err);
        err.flush();
    }

    /** Milliseconds of a nanosecond duration with two decimals, for progress lines. */
    static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }
}
