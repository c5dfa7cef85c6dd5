package io.sluice.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a whole {@link Configuration} at start-up: every key must be a known option
 * ({@link KnownOptions}) and its value must parse and satisfy the option's constraint. An unknown
 * key fails, naming the nearest known key
 * ({@code Unknown configuration key 'checkpoints.intervall'; did you mean 'checkpoints.interval'?}),
 * because a mistyped key would otherwise silently leave the default in place; a key under an open
 * prefix ({@code user.} and those of providers) is logged at WARN and passed through. All problems
 * are reported in one {@link IllegalConfigurationException}, one per line. Stateless and
 * thread-safe.
 */
public final class ConfigurationValidator {
    private static final Logger LOG = LoggerFactory.getLogger(ConfigurationValidator.class);

    /** Options that come with a module outside sluice-core: a hint when the module is missing. */
    private static final Map<String, String> MODULE_PREFIXES = Map.of(
            "s3.", "sluice-storage-s3",
            "high-availability.zookeeper.", "sluice-ha-zookeeper",
            "state.backend.rocksdb.", "sluice-state-rocksdb");

    private ConfigurationValidator() {}

    /** Validates against the options known in this JVM ({@link KnownOptions#discover()}). */
    public static void validate(Configuration configuration) {
        validate(configuration, KnownOptions.discover());
    }

    /** @throws IllegalConfigurationException naming every unknown key and invalid value */
    public static void validate(Configuration configuration, KnownOptions known) {
        List<String> problems = new ArrayList<>();
        for (Map.Entry<String, String> entry : configuration.toMap().entrySet()) {
            String key = entry.getKey();
            Optional<ConfigOption<?>> option = known.option(key);
            if (option.isPresent()) {
                try {
                    configuration.get(option.get());
                } catch (IllegalConfigurationException e) {
                    problems.add(e.getMessage());
                }
                continue;
            }
            Optional<String> open = known.openPrefixOf(key);
            if (open.isPresent()) {
                LOG.warn("Configuration key '{}' is not a Sluice option; passing it through unchecked (keys under"
                        + " '{}' are not validated)", key, open.get());
                continue;
            }
            problems.add(unknownKey(key, known));
        }
        if (!problems.isEmpty()) {
            throw new IllegalConfigurationException(String.join("\n", problems));
        }
    }

    static String unknownKey(String key, KnownOptions known) {
        Optional<String> nearest = known.nearestKey(key);
        if (nearest.isPresent()) {
            return "Unknown configuration key '" + key + "'; did you mean '" + nearest.get() + "'?";
        }
        for (Map.Entry<String, String> module : MODULE_PREFIXES.entrySet()) {
            if (key.startsWith(module.getKey()) && known.keys().stream().noneMatch(k -> k.startsWith(module.getKey()))) {
                return "Unknown configuration key '" + key + "': options under '" + module.getKey()
                        + "' come with module " + module.getValue() + ", which is not on the class path";
            }
        }
        return "Unknown configuration key '" + key + "'; the known keys are listed in docs/configuration.md"
                + " (settings for your own code go under '" + KnownOptions.USER_PREFIX + "')";
    }
}
