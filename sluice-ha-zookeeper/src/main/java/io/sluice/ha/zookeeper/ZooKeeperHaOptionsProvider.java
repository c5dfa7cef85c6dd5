package io.sluice.ha.zookeeper;

import io.sluice.config.ConfigOptionsProvider;
import java.util.List;

/** Makes {@link ZooKeeperHaOptions} known to configuration validation (registered as a service). */
public final class ZooKeeperHaOptionsProvider implements ConfigOptionsProvider {
    @Override
    public List<Class<?>> optionClasses() {
        return List.of(ZooKeeperHaOptions.class);
    }
}
