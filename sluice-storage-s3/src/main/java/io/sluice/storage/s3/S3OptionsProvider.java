package io.sluice.storage.s3;

import io.sluice.config.ConfigOptionsProvider;
import java.util.List;

/** Makes {@link S3Options} known to configuration validation (registered as a service). */
public final class S3OptionsProvider implements ConfigOptionsProvider {
    @Override
    public List<Class<?>> optionClasses() {
        return List.of(S3Options.class);
    }
}
