package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import org.junit.jupiter.api.Test;

/** The ZooKeeper options are known to configuration validation through their provider. */
class ZooKeeperHaOptionsValidationTest {
    @Test
    void zooKeeperKeysAreKnownAndTheirTyposNamed() {
        assertThatCode(() -> ZkTestSupport.config("localhost:2181", "c").validateAll()).doesNotThrowAnyException();
        assertThatThrownBy(() -> new Configuration().setString("high-availability.zookeeper.quorom", "zk:2181")
                .validateAll())
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Unknown configuration key 'high-availability.zookeeper.quorom'; did you mean"
                        + " 'high-availability.zookeeper.quorum'?");
    }
}
