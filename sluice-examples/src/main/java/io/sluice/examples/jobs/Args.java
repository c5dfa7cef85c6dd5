package io.sluice.examples.jobs;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

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
}
