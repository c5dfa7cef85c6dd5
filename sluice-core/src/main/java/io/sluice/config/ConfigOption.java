package io.sluice.config;

import java.util.Objects;
import java.util.function.Predicate;

/**
 * One typed configuration setting: its key, type, default value, description and, optionally, a
 * constraint on the value. Created with {@link ConfigOptions#key(String)} and kept in
 * {@code public static final} fields of an options class such as {@link CheckpointingOptions}.
 * Immutable and thread-safe; {@code with...} methods return a new option.
 *
 * @param <T> the Java type of the value
 */
public final class ConfigOption<T> {
    private final String key;
    private final OptionType<T> type;
    private final T defaultValue;
    private final String description;
    private final Predicate<? super T> constraint;
    private final String requirement;

    ConfigOption(String key, OptionType<T> type, T defaultValue, String description,
            Predicate<? super T> constraint, String requirement) {
        this.key = key;
        this.type = type;
        this.defaultValue = Objects.requireNonNull(defaultValue, () -> "Option " + key + " needs a default value");
        this.description = description;
        this.constraint = constraint;
        this.requirement = requirement;
        check(defaultValue);
    }

    /** Returns this option with {@code description}, shown in the generated configuration docs. */
    public ConfigOption<T> withDescription(String description) {
        return new ConfigOption<>(key, type, defaultValue, description, constraint, requirement);
    }

    /**
     * Returns this option with a constraint. {@code requirement} completes the sentence "must be
     * ...", for example {@code "at least 1"}; it appears in error messages and in the docs.
     */
    public ConfigOption<T> withConstraint(Predicate<? super T> valid, String requirement) {
        return new ConfigOption<>(key, type, defaultValue, description, valid, requirement);
    }

    public String key() {
        return key;
    }

    public T defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** The type as shown in the docs, for example {@code Duration} or {@code Enum (none, fixed-delay)}. */
    public String typeName() {
        return type.name();
    }

    /** What a value must satisfy beyond its type, for example {@code "at least 1"}; empty if anything goes. */
    public String requirement() {
        return requirement == null ? "" : requirement;
    }

    /** The configuration string form of {@code value}, which {@link Configuration} parses back. */
    public String format(T value) {
        return type.format(value);
    }

    T parse(String raw) {
        T value = type.parse(key, raw);
        checkParsed(value, raw);
        return value;
    }

    T check(T value) {
        Objects.requireNonNull(value, () -> "Value for " + key + " must not be null");
        checkParsed(value, type.format(value));
        return value;
    }

    private void checkParsed(T value, String raw) {
        if (constraint != null && !constraint.test(value)) {
            throw new IllegalConfigurationException(
                    "Invalid value '" + raw + "' for " + key + ": must be " + requirement);
        }
    }

    @Override
    public String toString() {
        return key + " (" + typeName() + ", default " + format(defaultValue) + ")";
    }
}
