package io.sluice.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A mutable map from keys to string values, read and written through typed {@link ConfigOption}s.
 * Typed getters parse and check the stored string and throw {@link IllegalConfigurationException}
 * naming the key, the value and the expected form; absent keys yield the option's default.
 *
 * <p>Not thread-safe: build it on one thread, then hand out a {@link #copy()} or only read it.
 */
public final class Configuration {
    private final Map<String, String> values = new TreeMap<>();

    public Configuration() {}

    /** A configuration holding {@code values}, for example parsed from a properties file. */
    public Configuration(Map<String, String> values) {
        values.forEach(this::setString);
    }

    public Configuration copy() {
        return new Configuration(values);
    }

    /** The value of {@code option}, or its default if not set. */
    public <T> T get(ConfigOption<T> option) {
        String raw = values.get(option.key());
        return raw == null ? option.defaultValue() : option.parse(raw);
    }

    /** Sets {@code option} after checking {@code value} against its constraint. */
    public <T> Configuration set(ConfigOption<T> option, T value) {
        values.put(option.key(), option.format(option.check(value)));
        return this;
    }

    /** Sets a raw string value; it is parsed and checked when read. */
    public Configuration setString(String key, String value) {
        if (key == null || value == null) {
            throw new IllegalArgumentException("Configuration key and value must not be null: " + key + "=" + value);
        }
        values.put(key, value);
        return this;
    }

    public Optional<String> getString(String key) {
        return Optional.ofNullable(values.get(key));
    }

    public boolean contains(ConfigOption<?> option) {
        return values.containsKey(option.key());
    }

    public Configuration remove(ConfigOption<?> option) {
        values.remove(option.key());
        return this;
    }

    /** The raw values, sorted by key. */
    public Map<String, String> toMap() {
        return Collections.unmodifiableMap(new TreeMap<>(values));
    }

    /**
     * Parses and checks every one of {@code options} that is set, and reports all problems in one
     * {@link IllegalConfigurationException}, one per line. Call at startup to fail before work begins.
     */
    public void validate(Collection<? extends ConfigOption<?>> options) {
        List<String> problems = new ArrayList<>();
        for (ConfigOption<?> option : options) {
            try {
                get(option);
            } catch (IllegalConfigurationException e) {
                problems.add(e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            throw new IllegalConfigurationException(String.join("\n", problems));
        }
    }

    /** Values of secret options (tokens, secret keys, passwords) are shown as {@code ******}. */
    @Override
    public String toString() {
        Map<String, String> shown = new java.util.TreeMap<>();
        values.forEach((k, v) -> shown.put(k, isSecret(k) ? "******" : v));
        return "Configuration" + shown;
    }

    private static boolean isSecret(String key) {
        String k = key.toLowerCase(java.util.Locale.ROOT);
        return k.endsWith("token") || k.contains("secret") || k.contains("password");
    }
}
