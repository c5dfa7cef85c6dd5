package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Revocations are delivered promptly while ZooKeeper operations of the same services are stuck in
 * Curator's foreground retries (here: the server is stopped, so every operation waits the
 * connection timeout, 5 s, per attempt, six attempts). Before the fix, such operations ran on the
 * one notification thread (or held the fence lock a revocation waits for), so a revocation queued
 * behind them for about 30 s, longer than the session timeout after which a standby is granted.
 */
class ZooKeeperNotificationLatencyTest {
    private TestingServer server;
    private ZooKeeperHaServices ha;
    @TempDir
    Path dir;

    @BeforeEach
    void startZooKeeper() throws Exception {
        server = ZkTestSupport.startServer(dir);
    }

    @AfterEach
    void stop() throws Exception {
        server.restart(); // so that closing the services does not wait for more retries
        if (ha != null) {
            ha.close();
        }
        server.close();
    }

    /** A fenced write stuck in retries on an I/O thread does not hold back the SUSPENDED revocation. */
    @Test
    void revocationIsNotHeldBackByAFencedWriteInRetries() throws Exception {
        ha = ZkTestSupport.services(server.getConnectString(), "fenced-write-in-retries");
        JobId job = JobId.generate();
        ZkTestSupport.Contender a = new ZkTestSupport.Contender("a");
        LeaderElection election = ha.jobLeaderElection(job, "a");
        election.startLeaderElection(a);
        UUID session = a.grants.poll(10, TimeUnit.SECONDS);
        assertThat(session).isNotNull();

        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch serverStopped = new CountDownLatch(1);
        CompletableFuture<Throwable> writeOutcome = new CompletableFuture<>();
        Thread writer = new Thread(() -> {
            try {
                election.runIfLeader(session, () -> {
                    writing.countDown();
                    serverStopped.await();
                    ha.checkpointRecoveryFactory().pointerStore().writePointer(job, 1, "chk-1/_metadata");
                });
                writeOutcome.complete(null);
            } catch (Throwable t) {
                writeOutcome.complete(t);
            }
        }, "test-fenced-writer");
        writer.start();
        assertThat(writing.await(10, TimeUnit.SECONDS)).isTrue();

        server.stop();
        long stoppedAt = System.nanoTime();
        serverStopped.countDown();

        assertThat(a.revocations.poll(4, TimeUnit.SECONDS))
                .as("revocation on SUSPENDED while a fenced write is retrying").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isLessThan(Duration.ofSeconds(4));
        assertThat(election.hasLeadership(session)).isFalse();
        assertThat(a.threads).allMatch(t -> t.startsWith("sluice-zk-election-"));
        // The write in flight was interrupted and reports that leadership was lost.
        assertThat(writeOutcome.get(10, TimeUnit.SECONDS)).isInstanceOf(LeadershipLostException.class);
        assertThat(Thread.interrupted()).isFalse();
    }

    /**
     * A leader-retrieval read stuck in retries does not hold back another component's revocation
     * (SUSPENDED for longer than the tolerance, a timer on the notification thread).
     */
    @Test
    void revocationIsNotHeldBackByAReadOfAnotherComponentInRetries() throws Exception {
        ha = (ZooKeeperHaServices) io.sluice.ha.loader.HighAvailabilityServicesLoader.load(
                ZkTestSupport.config(server.getConnectString(), "retrieval-in-retries")
                        .set(ZooKeeperHaOptions.SUSPENDED_TOLERANCE, Duration.ofSeconds(2)));
        ZooKeeperLeaderRetrieval retrieval = ha.dispatcherLeaderRetrieval(); // re-reads every 2 s
        ZkTestSupport.Contender a = new ZkTestSupport.Contender("a");
        LeaderElection election = ha.jobLeaderElection(JobId.generate(), "a");
        election.startLeaderElection(a);
        assertThat(a.grants.poll(10, TimeUnit.SECONDS)).isNotNull();
        assertThat(retrieval.currentLeader()).isEmpty();

        server.stop();
        long stoppedAt = System.nanoTime();
        // The retrieval's next read (within 2 s) is stuck in retries for about 30 s; the revocation is due at 2 s.
        assertThat(a.revocations.poll(6, TimeUnit.SECONDS))
                .as("revocation after the suspended tolerance while a leader retrieval read is retrying").isTrue();
        assertThat(Duration.ofNanos(System.nanoTime() - stoppedAt)).isBetween(Duration.ofMillis(1_900),
                Duration.ofSeconds(6));
        assertThat(a.threads).allMatch(t -> t.startsWith("sluice-zk-election-"));
    }
}
