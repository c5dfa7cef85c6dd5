package io.sluice.rest;

import io.sluice.config.ConfigOptionsProvider;
import java.util.List;

/** Makes {@link RestOptions} known to configuration validation (registered as a service). */
public final class RestOptionsProvider implements ConfigOptionsProvider {
    @Override
    public List<Class<?>> optionClasses() {
        return List.of(RestOptions.class);
    }
}
