package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.graph.JobId;
import io.sluice.ha.HighAvailabilityServicesLoader;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import java.net.ServerSocket;
import java.nio.file.NoSuchFileException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Leader election and fencing against a real ZooKeeper (Curator's TestingServer), driven directly. */
class ZooKeeperFencingTest {
    private static TestingServer server;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        server = new TestingServer(true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        server.close();
    }

    @Test
    void staleLeaderWriteIsRejectedByZooKeeperWhileTheNewLeadersWriteLands() throws Exception {
        try (ZooKeeperHaServices ha = ZkTestSupport.services(server.getConnectString(), "fencing")) {
            JobId job = JobId.generate();
            ZooKeeperCheckpointPointerStore pointers = ha.checkpointRecoveryFactory().pointerStore();
            ZkTestSupport.Contender a = new ZkTestSupport.Contender("a");
            ZkTestSupport.Contender b = new ZkTestSupport.Contender("b");
            LeaderElection ea = ha.jobLeaderElection(job, "a");
            ea.startLeaderElection(a);
            UUID sa = a.grants.poll(10, TimeUnit.SECONDS);
            assertThat(sa).isNotNull();
            LeaderElection eb = ha.jobLeaderElection(job, "b");
            eb.startLeaderElection(b);
            assertThat(ea.hasLeadership(sa)).isTrue();
            String staleNode = ((ZooKeeperLeaderElection) ea).leaderNode(sa);
            assertThat(staleNode).startsWith(ha.leaderPath(job) + "/");
            ea.runIfLeader(sa, () -> pointers.writePointer(job, 1, "chk-1/_metadata"));

            KillSession.kill(ha.contenderClient("a").getZookeeperClient().getZooKeeper());
            UUID sb = b.grants.poll(20, TimeUnit.SECONDS);
            assertThat(sb).as("b is granted after a's session expired").isNotNull().isNotEqualTo(sa);

            // a, as if it had not noticed yet ("both believe they lead"): its fence is its old leader node.
            assertThatThrownBy(() -> ZooKeeperHaServices.runFenced(new ZooKeeperHaServices.Fence(staleNode, "a"),
                    () -> pointers.writePointer(job, 2, "chk-2/_metadata")))
                    .isInstanceOf(LeadershipLostException.class).hasMessageContaining(staleNode);
            assertThat(ha.client().checkExists().forPath(pointers.pointerPath(job, 2))).isNull();
            assertThatThrownBy(() -> ZooKeeperHaServices.runFenced(new ZooKeeperHaServices.Fence(staleNode, "a"),
                    () -> ha.jobGraphStore().removeJobGraph(job))).isInstanceOf(LeadershipLostException.class);
            // Through the election with the old session: refused as well.
            assertThatThrownBy(() -> ea.runIfLeader(sa, () -> pointers.writePointer(job, 2, "chk-2/_metadata")))
                    .isInstanceOf(LeadershipLostException.class);
            assertThat(a.revocations.poll(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ea.hasLeadership(sa)).isFalse();

            eb.runIfLeader(sb, () -> pointers.writePointer(job, 2, "chk-2/_metadata"));
            assertThat(pointers.readPointer(job, 2)).isEqualTo("chk-2/_metadata");
            assertThat(pointers.checkpointIds(job)).containsExactly(1L, 2L);
            assertThat(a.threads).allMatch(t -> t.startsWith("sluice-zk-election-"));
            assertThat(b.threads).allMatch(t -> t.startsWith("sluice-zk-election-"));
            ea.close();
            eb.close();
        }
    }

    @Test
    void closingRevokesAndLaterWritesOfTheOldSessionAreRefused() throws Exception {
        try (ZooKeeperHaServices ha = ZkTestSupport.services(server.getConnectString(), "close")) {
            JobId job = JobId.generate();
            ZkTestSupport.Contender a = new ZkTestSupport.Contender("a");
            LeaderElection ea = ha.jobLeaderElection(job, "a");
            ea.startLeaderElection(a);
            UUID sa = a.grants.poll(10, TimeUnit.SECONDS);
            ea.close();
            ea.close(); // idempotent (the latch is closed once)
            assertThat(a.revocations.poll(10, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> ea.runIfLeader(sa, () -> { throw new AssertionError("must not run"); }))
                    .isInstanceOf(LeadershipLostException.class);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                    ha.client().checkExists().forPath(ha.leaderPath(job)) == null);
        }
    }

    @Test
    void pointerStoreToleratesConcurrentWritesAndRemovals() throws Exception {
        try (ZooKeeperHaServices ha = ZkTestSupport.services(server.getConnectString(), "pointers")) {
            JobId job = JobId.generate();
            ZooKeeperCheckpointPointerStore pointers = ha.checkpointRecoveryFactory().pointerStore();
            assertThat(pointers.checkpointIds(job)).isEmpty();
            assertThatThrownBy(() -> pointers.readPointer(job, 7)).isInstanceOf(NoSuchFileException.class)
                    .hasMessageContaining("checkpoint 7 of job " + job);
            java.util.List<Thread> threads = new java.util.ArrayList<>();
            java.util.Queue<Throwable> errors = new java.util.concurrent.ConcurrentLinkedQueue<>();
            for (int t = 0; t < 6; t++) {
                int seed = t;
                threads.add(new Thread(() -> {
                    try {
                        for (int i = 0; i < 40; i++) {
                            long id = (i + seed) % 10;
                            pointers.writePointer(job, id, "chk-" + id + "/" + seed);
                            if (i % 3 == seed % 3) {
                                pointers.removePointer(job, (id + 1) % 10);
                            }
                            if (i == 20 && seed == 0) {
                                pointers.removeAll(job);
                            }
                        }
                    } catch (Throwable e) {
                        errors.add(e);
                    }
                }));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(60_000);
            }
            assertThat(errors).isEmpty();
            for (long id : pointers.checkpointIds(job)) {
                assertThat(pointers.readPointer(job, id)).startsWith("chk-" + id + "/");
            }
            pointers.removeAll(job);
            pointers.removeAll(job);
            assertThat(pointers.checkpointIds(job)).isEmpty();
            assertThat(ha.client().checkExists().forPath(pointers.jobDir(job))).isNull();
        }
    }

    @Test
    void checkpointIdCounterNeverRepeatsAcrossLeaders() throws Exception {
        try (ZooKeeperHaServices ha = ZkTestSupport.services(server.getConnectString(), "counter")) {
            JobId job = JobId.generate();
            var first = ha.checkpointRecoveryFactory().createCheckpointIdCounter(job, 1);
            var second = ha.checkpointRecoveryFactory().createCheckpointIdCounter(job, 1);
            java.util.Set<Long> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
            Thread t1 = new Thread(() -> take(first, ids));
            Thread t2 = new Thread(() -> take(second, ids));
            t1.start();
            t2.start();
            t1.join();
            t2.join();
            assertThat(ids).hasSize(200).allMatch(id -> id >= 1 && id <= 200);
            var third = ha.checkpointRecoveryFactory().createCheckpointIdCounter(job, 5);
            assertThat(third.getAndIncrement()).isEqualTo(201);
        }
    }

    private static void take(io.sluice.checkpoint.CheckpointIdCounter counter, java.util.Set<Long> ids) {
        try {
            for (int i = 0; i < 100; i++) {
                assertThat(ids.add(counter.getAndIncrement())).isTrue();
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void unreachableZooKeeperFailsNamingTheQuorum() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Configuration config = ZkTestSupport.config("127.0.0.1:" + port, "x")
                .set(ZooKeeperHaOptions.CONNECTION_TIMEOUT, java.time.Duration.ofSeconds(1));
        assertThatThrownBy(() -> HighAvailabilityServicesLoader.load(config))
                .hasMessageContaining("Could not connect to ZooKeeper at 127.0.0.1:" + port + " within 1 s");
        Configuration noQuorum = new Configuration().setString("high-availability.type", "zookeeper");
        assertThatThrownBy(() -> HighAvailabilityServicesLoader.load(noQuorum))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessageContaining("high-availability.zookeeper.quorum");
    }
}
