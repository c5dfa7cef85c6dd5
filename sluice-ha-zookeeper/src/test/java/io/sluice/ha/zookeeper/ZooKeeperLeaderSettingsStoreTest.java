package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeaderSettingsStore;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The leader's published settings are read back only while their publisher leads the dispatcher.
 *
 * <p>{@link LeaderElection#close} only enqueues the latch's close (its node is deleted on the
 * election's ZooKeeper thread, see {@code ZooKeeperLeaderElection}), so the record stops being read
 * once that delete has happened: awaited, bounded, not read at once (which failed intermittently).
 */
class ZooKeeperLeaderSettingsStoreTest {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @Test
    void aRecordIsReadOnlyWhileItsPublisherLeads() throws Exception {
        try (ZooKeeperHaServices ha = zooKeeper.services("settings")) {
            LeaderSettingsStore store = ha.leaderSettingsStore();
            assertThat(store.read()).as("nothing published yet").isEmpty();

            LeaderElection election = ha.dispatcherLeaderElection("jm-1");
            ZkTestSupport.Contender contender = new ZkTestSupport.Contender("jm-1");
            election.startLeaderElection(contender);
            assertThat(contender.grants.poll(30, TimeUnit.SECONDS)).isNotNull();
            store.publish("jm-1", Map.of("high-availability.storage-dir", "/ha", "rpc.max-message-size", "1048576"));
            assertThat(store.read()).contains(new LeaderSettingsStore.Published("jm-1",
                    Map.of("high-availability.storage-dir", "/ha", "rpc.max-message-size", "1048576")));

            store.publish("jm-0", Map.of("high-availability.storage-dir", "/stale"));
            assertThat(store.read()).as("a record of a job manager that does not lead").isEmpty();

            store.publish("jm-1", Map.of("high-availability.storage-dir", "/ha"));
            election.close();
            await("the closed election's latch node deleted").atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(store.read()).as("its publisher no longer leads").isEmpty());
        }
    }
}
