package io.sluice.state.rocksdb;

import io.sluice.config.ConfigOptionsProvider;
import java.util.List;

/** Makes {@link RocksDbOptions} known to configuration validation. Stateless. */
public final class RocksDbOptionsProvider implements ConfigOptionsProvider {
    @Override
    public List<Class<?>> optionClasses() {
        return List.of(RocksDbOptions.class);
    }
}
