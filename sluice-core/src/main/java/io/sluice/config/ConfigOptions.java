package io.sluice.config;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Entry point for declaring options:
 * {@code ConfigOptions.key("checkpoints.interval").durationType().defaultValue(Duration.ofSeconds(1)).withDescription("...")}.
 * Stateless and thread-safe.
 */
public final class ConfigOptions {
    private ConfigOptions() {}

    /** Starts an option with {@code key}: lower case, dot-separated, no whitespace. */
    public static KeyBuilder key(String key) {
        if (key == null || key.isBlank() || !key.equals(key.strip()) || key.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("Invalid option key '" + key + "': keys are non-empty and contain no whitespace");
        }
        return new KeyBuilder(key);
    }

    /**
     * The options declared as {@code public static final ConfigOption} fields of {@code optionsClass},
     * sorted by key.
     */
    public static List<ConfigOption<?>> declaredIn(Class<?> optionsClass) {
        List<ConfigOption<?>> options = new ArrayList<>();
        for (Field field : optionsClass.getFields()) {
            int mods = field.getModifiers();
            if (Modifier.isStatic(mods) && Modifier.isFinal(mods) && field.getType() == ConfigOption.class) {
                try {
                    options.add((ConfigOption<?>) field.get(null));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("Cannot read option field " + field, e);
                }
            }
        }
        options.sort(Comparator.comparing(ConfigOption::key));
        return options;
    }

    /** Picks the type of the option. */
    public static final class KeyBuilder {
        private final String key;

        private KeyBuilder(String key) {
            this.key = key;
        }

        public TypedBuilder<Duration> durationType() {
            return new TypedBuilder<>(key, OptionType.DURATION);
        }

        public TypedBuilder<Integer> intType() {
            return new TypedBuilder<>(key, OptionType.INT);
        }

        public TypedBuilder<Long> longType() {
            return new TypedBuilder<>(key, OptionType.LONG);
        }

        public TypedBuilder<Double> doubleType() {
            return new TypedBuilder<>(key, OptionType.DOUBLE);
        }

        public TypedBuilder<Boolean> booleanType() {
            return new TypedBuilder<>(key, OptionType.BOOLEAN);
        }

        /** An amount of memory in bytes, written {@code 64 mb}, {@code 1 gb} or bare bytes (see {@link MemorySizes}). */
        public TypedBuilder<Long> memoryType() {
            return new TypedBuilder<>(key, OptionType.MEMORY);
        }

        public TypedBuilder<String> stringType() {
            return new TypedBuilder<>(key, OptionType.STRING);
        }

        /** Enum values are written in lower case with dashes: {@code FIXED_DELAY} is {@code fixed-delay}. */
        public <E extends Enum<E>> TypedBuilder<E> enumType(Class<E> type) {
            return new TypedBuilder<>(key, OptionType.forEnum(type));
        }
    }

    /** Sets the default value, which every option has. */
    public static final class TypedBuilder<T> {
        private final String key;
        private final OptionType<T> type;

        private TypedBuilder(String key, OptionType<T> type) {
            this.key = key;
            this.type = type;
        }

        public ConfigOption<T> defaultValue(T value) {
            return new ConfigOption<>(key, type, value, "", null, null);
        }
    }
}
