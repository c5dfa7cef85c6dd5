package io.sluice.ha.embedded;

import static io.sluice.ha.embedded.RecordingContender.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EmbeddedLeaderElectionServiceTest {
    private static final String NAME = "job-1a2b3c4d5e6f708192a3b4c5d6e7f809";

    @TempDir
    Path haDir;

    private EmbeddedLeaderElectionService service;
    private final ExecutorService io = Executors.newCachedThreadPool();

    @BeforeEach
    void setUp() {
        service = EmbeddedLeaderElectionService.acquire(haDir);
    }

    @AfterEach
    void tearDown() {
        io.shutdownNow();
        service.release();
    }

    @Test
    void firstContenderLeadsAndClosingHandsLeadershipToTheNextWithAFreshSession() throws Exception {
        RecordingContender first = new RecordingContender("jm-1");
        RecordingContender second = new RecordingContender("jm-2");
        LeaderElection e1 = service.createLeaderElection(NAME, "jm-1");
        LeaderElection e2 = service.createLeaderElection(NAME, "jm-2");

        e1.startLeaderElection(first);
        UUID s1 = first.awaitGrant();
        e2.startLeaderElection(second);
        assertThat(e1.hasLeadership(s1)).isTrue();
        assertThat(e2.hasLeadership(s1)).isFalse();

        e1.close();
        first.awaitRevoke();
        UUID s2 = second.awaitGrant();

        assertThat(s2).isNotEqualTo(s1);
        assertThat(e2.hasLeadership(s2)).isTrue();
        assertThat(e1.hasLeadership(s1)).isFalse();
        e2.close();
    }

    @Test
    void callbacksArriveOnTheElectionThreadNotTheCallersThread() throws Exception {
        RecordingContender contender = new RecordingContender("jm-1");
        LeaderElection election = service.createLeaderElection(NAME, "jm-1");
        String caller = Thread.currentThread().getName();

        election.startLeaderElection(contender);
        RecordingContender.Event grant = contender.next();
        service.revokeLeader(NAME);
        RecordingContender.Event revoke = contender.next();
        RecordingContender.Event regrant = contender.next();

        assertThat(grant.isGrant()).isTrue();
        assertThat(revoke.isGrant()).isFalse();
        assertThat(regrant.session()).as("alone, a revoked contender is granted again with a fresh session")
                .isNotNull().isNotEqualTo(grant.session());
        assertThat(grant.thread()).isNotEqualTo(caller).startsWith("sluice-ha-election-");
        assertThat(revoke.thread()).isEqualTo(grant.thread());
        election.close();
    }

    @Test
    void twoHaServicesOnTheSameDirectoryCompeteInOneElection() throws Exception {
        JobId job = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");
        try (EmbeddedHaServices jm1 = new EmbeddedHaServices(haDir);
             EmbeddedHaServices jm2 = new EmbeddedHaServices(haDir.resolve("sub").resolve(".."))) {
            RecordingContender c1 = new RecordingContender("jm-1");
            RecordingContender c2 = new RecordingContender("jm-2");
            LeaderElection e1 = jm1.jobLeaderElection(job, "jm-1");
            LeaderElection e2 = jm2.jobLeaderElection(job, "jm-2");

            e1.startLeaderElection(c1);
            UUID s1 = c1.awaitGrant();
            e2.startLeaderElection(c2);
            jm1.close();
            c1.awaitRevoke();
            UUID s2 = c2.awaitGrant();

            assertThat(jm2.leaderElectionService()).isSameAs(jm1.leaderElectionService());
            assertThat(e2.hasLeadership(s2)).isTrue();
            assertThat(e1.hasLeadership(s1)).isFalse();
        }
    }

    @Test
    void runIfLeaderOfARevokedSessionThrowsWithoutRunningTheWrite() throws Exception {
        RecordingContender contender = new RecordingContender("jm-1");
        LeaderElection election = service.createLeaderElection(NAME, "jm-1");
        election.startLeaderElection(contender);
        UUID session = contender.awaitGrant();
        AtomicBoolean ran = new AtomicBoolean();

        assertThat(service.revokeLeader(NAME)).isTrue();

        assertThatThrownBy(() -> election.runIfLeader(session, () -> ran.set(true)))
                .isInstanceOf(LeadershipLostException.class)
                .hasMessage("jm-1 no longer leads " + NAME + " (session " + session + "); the write was not performed");
        assertThat(ran).isFalse();
        election.close();
    }

    @Test
    void revocationWaitsForAFencedWriteInProgress() throws Exception {
        RecordingContender contender = new RecordingContender("jm-1");
        LeaderElection election = service.createLeaderElection(NAME, "jm-1");
        election.startLeaderElection(contender);
        UUID session = contender.awaitGrant();
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch finishWrite = new CountDownLatch(1);
        AtomicBoolean writeDone = new AtomicBoolean();

        Future<?> write = io.submit(() -> {
            election.runIfLeader(session, () -> {
                writing.countDown();
                assertThat(finishWrite.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
                writeDone.set(true);
            });
            return null;
        });
        assertThat(writing.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        AtomicReference<Thread> revoker = new AtomicReference<>();
        CompletableFuture<Boolean> revoke = CompletableFuture.supplyAsync(() -> {
            revoker.set(Thread.currentThread());
            return service.revokeLeader(NAME);
        }, io);

        await().atMost(WAIT).until(() -> revoker.get() != null && revoker.get().getState() == Thread.State.WAITING);
        assertThat(revoke).as("revocation must wait for the write holding the lock").isNotDone();
        assertThat(election.hasLeadership(session)).isTrue();

        finishWrite.countDown();
        write.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertThat(revoke.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(writeDone).isTrue();
        assertThat(election.hasLeadership(session)).isFalse();
        assertThatThrownBy(() -> election.runIfLeader(session, () -> { }))
                .isInstanceOf(LeadershipLostException.class);
        election.close();
    }
}
