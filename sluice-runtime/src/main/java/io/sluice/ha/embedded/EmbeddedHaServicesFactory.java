package io.sluice.ha.embedded;

import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.ha.HighAvailabilityServices;
import io.sluice.ha.HighAvailabilityServicesFactory;
import java.nio.file.Path;

/** Creates {@link EmbeddedHaServices} on {@code high-availability.dir}. Stateless; blocking (creates the directory). */
public final class EmbeddedHaServicesFactory implements HighAvailabilityServicesFactory {
    @Override
    public HighAvailabilityServices create(Configuration configuration) {
        return new EmbeddedHaServices(Path.of(configuration.get(HighAvailabilityOptions.DIRECTORY)));
    }
}
