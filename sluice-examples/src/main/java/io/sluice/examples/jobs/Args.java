package io.sluice.examples.jobs;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** The {@code --name value} arguments of an example's {@code main}; unknown names are rejected, naming the known ones. */
final class Args {
    private final Map<String, String> values = new HashMap<>();

    Args(String[] args, Set<String> known) {
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (!name.startsWith("--") || !known.contains(name.substring(2))) {
                throw new IllegalArgumentException("Unknown argument '" + name + "'; this example takes "
                        + known.stream().sorted().map(k -> "--" + k).toList());
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("Argument " + name + " needs a value");
            }
            values.put(name.substring(2), args[++i]);
        }
    }

    String get(String name, String defaultValue) {
        return values.getOrDefault(name, defaultValue);
    }

    /** The value of {@code --name}, or {@code null} when it was not given. */
    @Nullable String optional(String name) {
        return values.get(name);
    }

    String required(String name) {
        String v = values.get(name);
        if (v == null) {
            throw new IllegalArgumentException("Missing argument --" + name);
        }
        return v;
    }

    long getLong(String name, long defaultValue) {
        String v = values.get(name);
        try {
            return v == null ? defaultValue : Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a whole number, not '" + v + "'");
        }
    }

    /** A duration such as {@code 500ms}, {@code 5s}, {@code 30min}, {@code 2h} or {@code 1d}. */
    Duration getDuration(String name, Duration defaultValue) {
        String v = values.get(name);
        if (v == null) {
            return defaultValue;
        }
        Matcher m = DURATION.matcher(v.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("--" + name + " takes a duration such as 500ms, 5s, 30min, 2h or 1d,"
                    + " not '" + v + "'");
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "min", "m" -> Duration.ofMinutes(amount);
            case "h" -> Duration.ofHours(amount);
            default -> Duration.ofDays(amount);
        };
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|min|m|h|d)");
}
