package io.sluice.config;

import java.util.List;

/**
 * Makes a module's options known to configuration validation ({@link KnownOptions}): modules that
 * declare options outside {@code sluice-core} (ZooKeeper HA, S3 storage, your own HA services or
 * blob store) register an implementation in
 * {@code META-INF/services/io.sluice.config.ConfigOptionsProvider}. Implementations need a public
 * no-argument constructor and must be stateless.
 */
public interface ConfigOptionsProvider {
    /** Classes declaring {@code public static final ConfigOption} fields. */
    List<Class<?>> optionClasses();

    /**
     * Key prefixes (ending in {@code .}) under which keys this module does not declare are passed
     * through with a warning instead of failing, for settings read by name. Empty by default.
     */
    default List<String> openPrefixes() {
        return List.of();
    }
}
