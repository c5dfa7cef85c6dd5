package io.sluice.compare.sluice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.compare.LargeStatePlan;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SluiceLargeStateTest {

    private static final LargeStatePlan PLAN = LargeStatePlan.of("full");

    @Test
    void withoutSettingsTheClusterHasTheHarnessesOwnConfiguration() {
        assertThat(SluiceLargeState.clusterConfiguration(PLAN, Map.of()).toMap()).containsExactlyInAnyOrderEntriesOf(
                Map.of("cluster.task-executors", "2", "cluster.slots-per-task-executor", "2",
                        "state.backend.rocksdb.memory.per-slot", "256 mb"));
    }

    @Test
    void settingsGoOverTheHarnessesOwnAndAreValidatedLikeAnyClusterConfiguration() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("state.backend.rocksdb.compaction.level0-files", "20");
        settings.put("state.backend.rocksdb.memory.per-slot", "128 mb");
        Configuration configuration = SluiceLargeState.clusterConfiguration(PLAN, settings);
        assertThat(configuration.toMap())
                .containsEntry("state.backend.rocksdb.compaction.level0-files", "20")
                .containsEntry("state.backend.rocksdb.memory.per-slot", "128 mb")
                .containsEntry("cluster.task-executors", "2");
        configuration.validateAll();

        Configuration typo = SluiceLargeState.clusterConfiguration(PLAN,
                Map.of("state.backend.rocksdb.compaction.level0-file", "20"));
        assertThatThrownBy(typo::validateAll).isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("state.backend.rocksdb.compaction.level0-file");
    }
}
