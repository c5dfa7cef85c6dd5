package io.sluice.cluster.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.ha.LeaderSettingsStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SharedSettingsTest {

    private static Configuration config(String... keyValues) {
        Configuration c = new Configuration();
        for (int i = 0; i < keyValues.length; i += 2) {
            c.setString(keyValues[i], keyValues[i + 1]);
        }
        return c;
    }

    @Test
    void equalSettingsWrittenDifferentlyDoNotDiffer() {
        SharedSettings leader = SharedSettings.of(config(SharedSettings.STORAGE_DIR, "/shared/ha/",
                "rpc.max-message-size", "67108864", "heartbeat.timeout", "6 s"));
        SharedSettings mine = SharedSettings.of(config(SharedSettings.STORAGE_DIR, "file:///shared/ha"));
        assertThat(mine.differencesFrom(leader)).isEmpty();
    }

    @Test
    void aDifferentStorageDirectoryIsRequiredAndTheOthersAreNot() {
        SharedSettings leader = SharedSettings.of(config(SharedSettings.STORAGE_DIR, "s3://b/ha",
                "rpc.max-message-size", "1048576"));
        SharedSettings mine = SharedSettings.of(config(SharedSettings.STORAGE_DIR, "s3://b/other",
                "rpc.max-message-size", "8388608"));
        assertThat(mine.differencesFrom(leader)).containsExactly(
                new SharedSettings.Difference(SharedSettings.STORAGE_DIR, "s3://b/other", "s3://b/ha", true),
                new SharedSettings.Difference("rpc.max-message-size", "8388608", "1048576", false));
        assertThat(mine.differencesFrom(leader).get(1))
                .hasToString("rpc.max-message-size: this job manager 8388608, the leader 1048576");
    }

    @Test
    void keysTheLeaderDidNotPublishAreNotCompared() {
        SharedSettings leader = SharedSettings.published(Map.of(SharedSettings.STORAGE_DIR, "/ha"));
        SharedSettings mine = SharedSettings.of(config(SharedSettings.STORAGE_DIR, "/ha", "heartbeat.timeout", "20 s"));
        assertThat(mine.differencesFrom(leader)).isEmpty();
    }

    @Test
    void theCheckRefusesARequiredDifferenceNamingTheKeyAndBothValuesAndOnlyWarnsOtherwise() {
        SharedSettings leaders = SharedSettings.of(config(SharedSettings.STORAGE_DIR, "/ha", "rpc.max-message-size", "1048576"));
        LeaderSettingsStore store = new LeaderSettingsStore() {
            @Override
            public void publish(String contenderId, Map<String, String> settings) {
            }

            @Override
            public Optional<Published> read() {
                return Optional.of(new Published("sluice-jm://jm-1:6123/jm-1", leaders.values()));
            }
        };
        assertThatThrownBy(() -> SharedSettingsCheck.againstLeader(store, "jm-2",
                SharedSettings.of(config(SharedSettings.STORAGE_DIR, "/other"))))
                .isInstanceOf(SharedSettingsMismatchException.class)
                .hasMessageContaining("Job manager jm-2 does not start")
                .hasMessageContaining("high-availability.storage-dir: this job manager /other, the leader /ha")
                .hasMessageContaining("sluice-jm://jm-1:6123/jm-1")
                .satisfies(e -> assertThat(((SharedSettingsMismatchException) e).differences()).hasSize(1));
        // only a recommended key differs: no exception
        SharedSettingsCheck.againstLeader(store, "jm-3", SharedSettings.of(config(SharedSettings.STORAGE_DIR, "/ha",
                "rpc.max-message-size", "8388608")));
        // nothing published: nothing to compare
        SharedSettingsCheck.againstLeader(LeaderSettingsStore.NONE, "jm-4", SharedSettings.of(config()));
        assertThat(SharedSettings.REQUIRED).isEqualTo(List.of(SharedSettings.STORAGE_DIR));
    }
}
