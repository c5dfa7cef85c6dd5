package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.checkpoint.CheckpointPointerInDoubtException;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.Configuration;
import io.sluice.config.IllegalConfigurationException;
import io.sluice.graph.JobId;
import io.sluice.ha.CheckpointPointerStore;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import io.sluice.ha.embedded.DefaultCompletedCheckpointStore;
import io.sluice.testutil.ForwardingCheckpointPointerStore;
import java.net.ServerSocket;
import java.nio.file.NoSuchFileException;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Leader election and fencing against a real ZooKeeper (Curator's TestingServer), driven directly. */
class ZooKeeperFencingTest {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @Test
    void staleLeaderWriteIsRejectedByZooKeeperWhileTheNewLeadersWriteLands() throws Exception {
        try (ZooKeeperHaServices ha = zooKeeper.services("fencing")) {
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
        try (ZooKeeperHaServices ha = zooKeeper.services("close")) {
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

    /**
     * The ordering behind the ZooKeeper chaos failure with seed 18: a job master's pointer write of
     * checkpoint 1 reaches ZooKeeper and is applied (its latch node still exists), then the revocation
     * (its session expired) interrupts the writer before the answer is back. The write reports that
     * leadership was lost, but the pointer is there: the store must say the write is in doubt, so that
     * the coordinator keeps the files the pointer names. Before, it said nothing was written and the
     * coordinator deleted chk-1; the next leader found the pointer and no metadata.
     */
    @Test
    void aPointerWriteInterruptedByTheRevocationAfterItWasAppliedIsInDoubtAndTheNextLeaderRestoresFromIt(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path checkpoints) throws Exception {
        try (ZooKeeperHaServices ha = zooKeeper.services("in-doubt")) {
            JobId job = JobId.generate();
            ZooKeeperCheckpointPointerStore pointers = ha.checkpointRecoveryFactory().pointerStore();
            CheckpointStorage storage = new CheckpointStorage(new io.sluice.storage.LocalFileBlobStore(checkpoints),
                    new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
            ZkTestSupport.Contender a = new ZkTestSupport.Contender("a");
            LeaderElection ea = ha.jobLeaderElection(job, "a");
            ea.startLeaderElection(a);
            UUID sa = a.grants.poll(10, TimeUnit.SECONDS);
            assertThat(sa).isNotNull();

            // The transaction is applied; the writer then waits for the answer, and the revocation interrupts it.
            java.util.concurrent.CountDownLatch applied = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch neverAnswered = new java.util.concurrent.CountDownLatch(1);
            CheckpointPointerStore answerLost = new ForwardingCheckpointPointerStore(pointers) {
                @Override
                public void writePointer(JobId jobId, long checkpointId, String metadataPath) throws Exception {
                    delegate.writePointer(jobId, checkpointId, metadataPath);
                    applied.countDown();
                    if (!neverAnswered.await(20, TimeUnit.SECONDS)) {
                        throw new AssertionError("the revocation did not interrupt the writer within 20 s");
                    }
                }
            };
            DefaultCompletedCheckpointStore store = new DefaultCompletedCheckpointStore(job, 3, answerLost, storage,
                    ea, sa, null, java.util.List.of());
            String state = storage.writeTaskState(job, 1, 0, 0, new byte[] {1, 2, 3});
            CompletedCheckpoint first = new CompletedCheckpoint(job, 1, 1000, 2000,
                    java.util.List.of(new TaskStateHandle(0, 0, state, 3, new byte[] {1}, null)), null);
            CompletedCheckpoint written = first.withMetadataPath(storage.writeMetadata(first));
            java.util.concurrent.CompletableFuture<Throwable> outcome = new java.util.concurrent.CompletableFuture<>();
            Thread writer = new Thread(() -> {
                try {
                    store.addCheckpoint(written);
                    outcome.complete(null);
                } catch (Throwable t) {
                    outcome.complete(t);
                }
            }, "test-checkpoint-io");
            writer.start();
            assertThat(applied.await(10, TimeUnit.SECONDS)).isTrue();

            KillSession.kill(ha.contenderClient("a").getZookeeperClient().getZooKeeper());

            assertThat(outcome.get(20, TimeUnit.SECONDS))
                    .isInstanceOf(CheckpointPointerInDoubtException.class)
                    .hasMessageContaining("checkpoint 1 of job " + job)
                    .hasCauseInstanceOf(LeadershipLostException.class);
            assertThat(a.revocations.poll(10, TimeUnit.SECONDS)).isTrue();
            assertThat(pointers.checkpointIds(job)).as("the interrupted write was applied").containsExactly(1L);

            // a, granted again on its new session, recovers from that pointer: the metadata is there.
            UUID again = a.grants.poll(30, TimeUnit.SECONDS);
            assertThat(again).isNotNull().isNotEqualTo(sa);
            CompletedCheckpointStore recovered = ha.checkpointRecoveryFactory().createRecoveredCompletedCheckpointStore(
                    job, 3, storage, ea, again, false, io.sluice.ha.RecoveryListener.NONE);
            assertThat(recovered.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(1L);
            ea.close();
        }
    }

    @Test
    void removingAnEndedJobsCheckpointsRemovesItsPointersAndItsIdCounterAndNothingOfOtherJobs() throws Exception {
        try (ZooKeeperHaServices ha = zooKeeper.services("ended")) {
            JobId ended = JobId.generate();
            JobId other = JobId.generate();
            ZooKeeperCheckpointPointerStore pointers = ha.checkpointRecoveryFactory().pointerStore();
            for (JobId job : java.util.List.of(ended, other)) {
                pointers.writePointer(job, 1, "chk-1/_metadata");
                pointers.writePointer(job, 2, "chk-2/_metadata");
                ha.checkpointRecoveryFactory().createCheckpointIdCounter(job, 1).getAndIncrement();
            }
            assertThat(ha.client().checkExists().forPath(pointers.counterPath(ended))).isNotNull();

            ha.checkpointRecoveryFactory().removeCheckpointsOfEndedJob(ended);
            ha.checkpointRecoveryFactory().removeCheckpointsOfEndedJob(ended); // idempotent

            assertThat(ha.checkpointRecoveryFactory().retainedCheckpointPaths(ended)).isEmpty();
            assertThat(ha.client().checkExists().forPath(pointers.jobDir(ended))).isNull();
            assertThat(ha.client().checkExists().forPath(pointers.counterPath(ended))).isNull();
            assertThat(pointers.checkpointIds(other)).containsExactly(1L, 2L);
            assertThat(ha.client().checkExists().forPath(pointers.counterPath(other))).isNotNull();
        }
    }

    @Test
    void pointerStoreToleratesConcurrentWritesAndRemovals() throws Exception {
        try (ZooKeeperHaServices ha = zooKeeper.services("pointers")) {
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
        try (ZooKeeperHaServices ha = zooKeeper.services("counter")) {
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
