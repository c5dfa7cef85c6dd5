package io.sluice.ha.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An election place that was closed (a job that ended) is forgotten by the HA services that made it,
 * so its contender can be garbage-collected while the services live on: a job's contender is its
 * {@code JobManagerRunner}, which references the ended job master and, through it, the job's last
 * failure, whose class keeps the job's class loader. Failed before: {@link EmbeddedHaServices} kept
 * every election it made until it was closed itself, so a {@code sluice cluster} process kept every
 * ended job's runner, and the loader of every job that had failed (CrashLoopProcessesITCase).
 */
class ClosedElectionsAreForgottenTest {
    private static final JobId JOB = JobId.of("0a1b2c3d4e5f60718293a4b5c6d7e8f9");

    @TempDir
    Path haDir;

    @Test
    void theContenderOfAClosedJobElectionCanBeCollectedWhileTheServicesLive() throws Exception {
        try (EmbeddedHaServices ha = new EmbeddedHaServices(haDir)) {
            WeakReference<RecordingContender> ended = joinLeadAndLeave(ha, "jm-1");
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                System.gc();
                return ended.get() == null;
            });

            // The services still work: a contender joining afterwards leads, and leaves.
            RecordingContender next = new RecordingContender("jm-2");
            LeaderElection election = ha.jobLeaderElection(JOB, "jm-2");
            election.startLeaderElection(next);
            UUID session = next.awaitGrant();
            assertThat(election.hasLeadership(session)).isTrue();
            election.close();
            next.awaitRevoke();
            assertThat(election.hasLeadership(session)).isFalse();
        }
    }

    private static WeakReference<RecordingContender> joinLeadAndLeave(EmbeddedHaServices ha, String id)
            throws InterruptedException {
        RecordingContender contender = new RecordingContender(id);
        LeaderElection election = ha.jobLeaderElection(JOB, id);
        election.startLeaderElection(contender);
        contender.awaitGrant();
        election.close();
        contender.awaitRevoke();
        return new WeakReference<>(contender);
    }
}
