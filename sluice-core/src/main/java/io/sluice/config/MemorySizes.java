package io.sluice.config;

import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parses and prints amounts of memory the way they appear in configuration: {@code "256 mb"},
 * {@code "256mb"}, {@code "1 gb"}, {@code "64 kib"}, or bare bytes {@code "1048576"}. Units are
 * binary (1 kb = 1024 bytes), as for every memory setting of the JVM. Stateless and thread-safe.
 */
public final class MemorySizes {
    /** The shape accepted by {@link #parse(String)}, for error messages. */
    public static final String EXPECTED_FORM = "an amount of memory such as 64 mb, 1 gb or 1048576 (bytes)";

    private static final Pattern AMOUNT_AND_UNIT = Pattern.compile("(\\d+)\\s*([a-zA-Z]*)");
    private static final Map<String, Long> UNITS = Map.ofEntries(
            Map.entry("", 1L), Map.entry("b", 1L), Map.entry("bytes", 1L),
            Map.entry("k", 1L << 10), Map.entry("kb", 1L << 10), Map.entry("kib", 1L << 10),
            Map.entry("m", 1L << 20), Map.entry("mb", 1L << 20), Map.entry("mib", 1L << 20),
            Map.entry("g", 1L << 30), Map.entry("gb", 1L << 30), Map.entry("gib", 1L << 30),
            Map.entry("t", 1L << 40), Map.entry("tb", 1L << 40), Map.entry("tib", 1L << 40));
    private static final String[] PRINTED = {"tb", "gb", "mb", "kb"};
    private static final int[] SHIFTS = {40, 30, 20, 10};

    private MemorySizes() {}

    /**
     * The number of bytes {@code text} stands for.
     *
     * @throws IllegalArgumentException when it is not a non-negative amount in one of the accepted forms
     */
    public static long parse(String text) {
        Matcher m = AMOUNT_AND_UNIT.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException(text);
        }
        Long unit = UNITS.get(m.group(2).toLowerCase(Locale.ROOT));
        if (unit == null) {
            throw new IllegalArgumentException(text);
        }
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    /** {@code bytes} in the largest unit that divides it, for example {@code 256 mb}; bare bytes otherwise. */
    public static String format(long bytes) {
        for (int i = 0; i < SHIFTS.length; i++) {
            long unit = 1L << SHIFTS[i];
            if (bytes != 0 && bytes % unit == 0) {
                return (bytes / unit) + " " + PRINTED[i];
            }
        }
        return Long.toString(bytes);
    }
}
