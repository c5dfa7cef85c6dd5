package io.sluice.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import org.junit.jupiter.api.Test;

/** The cluster options reach the local cluster. */
class LocalClusterConfigurationTest {

    @Test
    void clusterAndNetworkOptionsShapeTheCluster() {
        Configuration conf = new Configuration()
                .setString("cluster.task-executors", "3")
                .setString("cluster.slots-per-task-executor", "4")
                .setString("network.buffer-size", "8192")
                .setString("network.buffers-per-channel", "2");
        try (LocalCluster cluster = LocalCluster.builder().configuration(conf).build()) {
            assertThat(cluster.taskExecutors()).hasSize(3);
            assertThat(cluster.slotPool().totalSlots()).isEqualTo(12);
            assertThat(cluster.shuffle().bufferSize()).isEqualTo(8192);
            assertThat(cluster.shuffle().buffersPerChannel()).isEqualTo(2);
        }
    }

    @Test
    void anInvalidValueIsRejectedNamingTheKey() {
        Configuration conf = new Configuration().setString("cluster.task-executors", "zero");
        assertThatThrownBy(() -> LocalCluster.builder().configuration(conf))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("cluster.task-executors").hasMessageContaining("zero");
    }

    @Test
    void anUnknownKeyIsRejectedNamingTheNearestKnownKey() {
        Configuration conf = new Configuration().setString("cluster.task-executor", "3");
        assertThatThrownBy(() -> LocalCluster.builder().configuration(conf))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Unknown configuration key 'cluster.task-executor'; did you mean 'cluster.task-executors'?");
        assertThatThrownBy(() -> LocalCluster.builder().haServices(
                        new Configuration().setString("high-availability.typ", "memory")))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Unknown configuration key 'high-availability.typ'; did you mean 'high-availability.type'?");
    }
}
