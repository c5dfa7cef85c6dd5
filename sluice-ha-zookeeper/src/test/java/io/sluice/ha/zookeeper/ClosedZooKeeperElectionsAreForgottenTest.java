package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A job's election place, once closed (the job ended), is forgotten by the ZooKeeper HA services that
 * made it, so its contender (the job's {@code JobManagerRunner}, and through the ended job master the
 * job's last failure and class loader) can be garbage-collected while a {@code sluice jobmanager} runs
 * on. Failed before: {@link ZooKeeperHaServices} kept every election it made until it was closed itself.
 */
class ClosedZooKeeperElectionsAreForgottenTest {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @Test
    void theContenderOfAClosedJobElectionCanBeCollectedWhileTheServicesLive() throws Exception {
        try (ZooKeeperHaServices ha = zooKeeper.services("forgotten-elections")) {
            JobId job = JobId.generate();
            WeakReference<ZkTestSupport.Contender> ended = joinLeadAndLeave(ha, job, "a");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                System.gc();
                return ended.get() == null;
            });

            // The services still work: another contender of the same job leads, and leaves.
            ZkTestSupport.Contender next = new ZkTestSupport.Contender("b");
            LeaderElection election = ha.jobLeaderElection(job, "b");
            election.startLeaderElection(next);
            UUID session = next.grants.poll(20, TimeUnit.SECONDS);
            assertThat(session).as("b is granted").isNotNull();
            assertThat(election.hasLeadership(session)).isTrue();
            election.close();
            assertThat(next.revocations.poll(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    private static WeakReference<ZkTestSupport.Contender> joinLeadAndLeave(ZooKeeperHaServices ha, JobId job, String id)
            throws InterruptedException {
        ZkTestSupport.Contender contender = new ZkTestSupport.Contender(id);
        LeaderElection election = ha.jobLeaderElection(job, id);
        election.startLeaderElection(contender);
        assertThat(contender.grants.poll(20, TimeUnit.SECONDS)).as(id + " is granted").isNotNull();
        election.close();
        assertThat(contender.revocations.poll(20, TimeUnit.SECONDS)).as(id + " is revoked").isTrue();
        return new WeakReference<>(contender);
    }
}
