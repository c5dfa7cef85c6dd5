package io.sluice.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Durations as text, in the two forms Sluice shows them:
 * <ul>
 *   <li>the <b>configuration form</b> ({@link #parse}, {@link #format}): exact and read back by
 *       {@code parse}, as a value appears in configuration, in an error that names a key and its
 *       value, or in a restart strategy's description: {@code "500 ms"}, {@code "500ms"},
 *       {@code "10 s"}, {@code "1 min"}, {@code "2 h"}, {@code "1 d"}, the bare {@code "0"}, and
 *       ISO-8601 such as {@code "PT1S"};</li>
 *   <li>the <b>display form</b> ({@link #describe}): rounded to a tenth of a second, for waits
 *       and timeouts in log lines and status texts ({@code "next retry in 3.2 s"}).</li>
 * </ul>
 * Every duration Sluice prints goes through one of the two. Stateless and thread-safe.
 */
public final class Durations {
    /** The human-readable shape accepted by {@link #parse(String)}, for error messages. */
    public static final String EXPECTED_FORM = "a duration such as 500 ms, 10 s or 1 min";

    private static final Pattern AMOUNT_AND_UNIT = Pattern.compile("(\\d+)\\s*([a-zA-Z]+)");
    private static final Map<String, Duration> UNITS = Map.ofEntries(
            Map.entry("ns", Duration.ofNanos(1)),
            Map.entry("ms", Duration.ofMillis(1)),
            Map.entry("s", Duration.ofSeconds(1)),
            Map.entry("sec", Duration.ofSeconds(1)),
            Map.entry("secs", Duration.ofSeconds(1)),
            Map.entry("min", Duration.ofMinutes(1)),
            Map.entry("mins", Duration.ofMinutes(1)),
            Map.entry("h", Duration.ofHours(1)),
            Map.entry("d", Duration.ofDays(1)));

    private Durations() {}

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the text and {@link #EXPECTED_FORM} when it is not a
     *     non-negative duration in one of the accepted forms
     */
    public static Duration parse(String text) {
        String trimmed = text.trim();
        if (trimmed.equals("0")) {
            return Duration.ZERO;
        }
        if (trimmed.regionMatches(true, 0, "P", 0, 1)) {
            try {
                Duration d = Duration.parse(trimmed);
                if (!d.isNegative()) {
                    return d;
                }
            } catch (DateTimeParseException e) {
                // fall through to the common error below
            }
            throw invalid(text);
        }
        Matcher m = AMOUNT_AND_UNIT.matcher(trimmed);
        if (!m.matches()) {
            throw invalid(text);
        }
        Duration unit = UNITS.get(m.group(2).toLowerCase(Locale.ROOT));
        if (unit == null) {
            throw invalid(text);
        }
        try {
            return unit.multipliedBy(Long.parseLong(m.group(1)));
        } catch (NumberFormatException | ArithmeticException e) {
            throw invalid(text);
        }
    }

    /**
     * Prints {@code d} in the largest unit that represents it exactly, for example {@code "1 s"},
     * {@code "100 ms"}, {@code "30 min"}; the output is accepted by {@link #parse(String)}.
     */
    public static String format(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("Negative durations have no configuration form: " + d);
        }
        if (d.isZero()) {
            return "0 ms";
        }
        long nanos;
        try {
            nanos = d.toNanos();
        } catch (ArithmeticException tooLong) {
            return d.toString();
        }
        String[] names = {"d", "h", "min", "s", "ms"};
        long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L};
        for (int i = 0; i < names.length; i++) {
            if (nanos % sizes[i] == 0) {
                return nanos / sizes[i] + " " + names[i];
            }
        }
        return nanos + " ns";
    }

    /**
     * {@code d} for a log line or a status text: whole milliseconds below one second
     * ({@code "800 ms"}), else seconds rounded to a tenth, without the tenth when it is zero
     * ({@code "1.5 s"}, {@code "3.2 s"}, {@code "6 s"}, {@code "10 s"}). Not read back by
     * {@link #parse}: use {@link #format} where the text names a configuration value.
     */
    public static String describe(Duration d) {
        long ms = d.toMillis();
        if (ms < 1000) {
            return ms + " ms";
        }
        long tenths = (ms + 50) / 100;
        return tenths % 10 == 0 ? tenths / 10 + " s" : tenths / 10 + "." + tenths % 10 + " s";
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("Invalid duration '" + text + "': expected " + EXPECTED_FORM
                + " (units: ms, s, min, h, d) or ISO-8601 such as PT1S");
    }
}
