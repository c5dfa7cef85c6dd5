package io.sluice.state;

import io.sluice.config.Configuration;

/**
 * Makes a {@link StateBackend} known by name: the built-in {@code heap}, and {@code rocksdb} from
 * {@code sluice-state-rocksdb}. Found with {@link java.util.ServiceLoader} on Sluice's own class path
 * ({@code META-INF/services/io.sluice.state.StateBackendFactory}); never from a job's jar, since a
 * backend with a native library can be loaded only once per process. Implementations need a public
 * no-argument constructor and must be stateless.
 */
public interface StateBackendFactory {
    /** The value of {@code state.backend} that selects it, for example {@code rocksdb}. */
    String name();

    /**
     * The backend of one task executor, configured by the task executor's configuration.
     *
     * @throws io.sluice.config.IllegalConfigurationException naming a key whose value is invalid
     */
    StateBackend create(Configuration configuration);
}
