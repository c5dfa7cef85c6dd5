package io.sluice.cluster.membership;

import java.time.Duration;
import java.util.Locale;

/** Durations as log lines and status texts show them. */
final class Durations {
    private Durations() {}

    /** "6 s", "1.5 s", "800 ms". */
    static String describe(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        if (ms % 1000 == 0) {
            return ms / 1000 + " s";
        }
        return String.format(Locale.ROOT, "%.1f s", ms / 1000.0);
    }
}
