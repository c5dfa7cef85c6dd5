package io.sluice.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How the string form of an option maps to its Java type and back. Immutable and thread-safe.
 * Parsers signal bad input with {@link IllegalArgumentException}, which {@link #parse} turns into
 * an {@link IllegalConfigurationException} that names the key, the value and the expected form.
 */
final class OptionType<T> {
    static final OptionType<Duration> DURATION =
            new OptionType<>("Duration", Durations.EXPECTED_FORM, Durations::parse, Durations::format);
    static final OptionType<Integer> INT =
            new OptionType<>("Integer", "an integer such as 4", Integer::valueOf, String::valueOf);
    static final OptionType<Long> LONG =
            new OptionType<>("Long", "an integer such as 1024", Long::valueOf, String::valueOf);
    static final OptionType<Double> DOUBLE =
            new OptionType<>("Double", "a number such as 0.5", OptionType::parseFiniteDouble, String::valueOf);
    static final OptionType<Boolean> BOOLEAN =
            new OptionType<>("Boolean", "true or false", OptionType::parseBoolean, String::valueOf);
    static final OptionType<Long> MEMORY =
            new OptionType<>("Memory", MemorySizes.EXPECTED_FORM, MemorySizes::parse, MemorySizes::format);
    static final OptionType<String> STRING =
            new OptionType<>("String", "a string", Function.identity(), Function.identity());

    private final String name;
    private final String expectedForm;
    private final Function<String, T> parser;
    private final Function<T, String> formatter;

    private OptionType(String name, String expectedForm, Function<String, T> parser, Function<T, String> formatter) {
        this.name = name;
        this.expectedForm = expectedForm;
        this.parser = parser;
        this.formatter = formatter;
    }

    /** Enum constants are written in lower case with dashes: {@code FIXED_DELAY} is {@code fixed-delay}. */
    static <E extends Enum<E>> OptionType<E> forEnum(Class<E> type) {
        String values = Arrays.stream(type.getEnumConstants())
                .map(OptionType::enumValueName)
                .collect(Collectors.joining(", "));
        return new OptionType<>("Enum (" + values + ")", "one of " + values, raw -> {
            for (E constant : type.getEnumConstants()) {
                if (enumValueName(constant).equalsIgnoreCase(raw) || constant.name().equalsIgnoreCase(raw)) {
                    return constant;
                }
            }
            throw new IllegalArgumentException(raw);
        }, OptionType::enumValueName);
    }

    static String enumValueName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    String name() {
        return name;
    }

    T parse(String key, String raw) {
        try {
            return parser.apply(raw.trim());
        } catch (IllegalArgumentException e) {
            throw new IllegalConfigurationException(
                    "Invalid value '" + raw + "' for " + key + ": expected " + expectedForm, e);
        }
    }

    String format(T value) {
        return formatter.apply(value);
    }

    private static double parseFiniteDouble(String raw) {
        double d = Double.parseDouble(raw);
        if (!Double.isFinite(d)) {
            throw new IllegalArgumentException(raw);
        }
        return d;
    }

    private static boolean parseBoolean(String raw) {
        if (raw.equalsIgnoreCase("true")) {
            return true;
        }
        if (raw.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(raw);
    }
}
