package io.sluice.ha;

import io.sluice.config.Configuration;

/**
 * Creates {@link HighAvailabilityServices} from configuration. Set
 * {@code high-availability.type} to the fully qualified name of an implementation of this
 * interface (with a public no-argument constructor) to plug in your own.
 */
public interface HighAvailabilityServicesFactory {
    HighAvailabilityServices create(Configuration configuration) throws Exception;
}
