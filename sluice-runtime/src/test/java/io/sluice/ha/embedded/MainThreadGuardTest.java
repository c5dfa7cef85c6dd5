package io.sluice.ha.embedded;

import static io.sluice.ha.embedded.RecordingContender.WAIT;
import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.graph.JobId;
import io.sluice.ha.LeaderElection;
import io.sluice.rpc.DedicatedMainThreadExecutor;
import io.sluice.rpc.MainThreadViolationException;
import io.sluice.rpc.MainThreads;
import java.nio.file.Path;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainThreadGuardTest {
    private static final JobId JOB = JobId.of("1a2b3c4d5e6f708192a3b4c5d6e7f809");

    @TempDir
    Path haDir;

    private boolean guardBefore;
    private EmbeddedHaServices ha;
    private DedicatedMainThreadExecutor mainThread;

    @BeforeEach
    void setUp() {
        guardBefore = MainThreads.isGuardEnabled();
        MainThreads.setGuardEnabled(true);
        ha = new EmbeddedHaServices(haDir);
        mainThread = new DedicatedMainThreadExecutor("job-master-test");
    }

    @AfterEach
    void tearDown() {
        mainThread.close();
        ha.close();
        MainThreads.setGuardEnabled(guardBefore);
    }

    /** Runs {@code call} on the main thread and returns what it threw, or null. */
    private Throwable failureOnMainThread(ThrowingCall call) throws Exception {
        CompletableFuture<Throwable> thrown = new CompletableFuture<>();
        mainThread.execute(() -> {
            try {
                call.run();
                thrown.complete(null);
            } catch (Throwable t) {
                thrown.complete(t);
            }
        });
        return thrown.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws Exception;
    }

    @Test
    void storeCallsFromAMainThreadFail() throws Exception {
        assertThat(failureOnMainThread(() -> ha.jobGraphStore().jobIds()))
                .isInstanceOf(MainThreadViolationException.class)
                .hasMessageContaining("job-master-test")
                .hasMessageContaining("job graph store list");
        assertThat(failureOnMainThread(() -> ha.jobResultStore().hasResult(JOB)))
                .isInstanceOf(MainThreadViolationException.class)
                .hasMessageContaining("job result store has " + JOB);
        assertThat(failureOnMainThread(() -> ha.checkpointRecoveryFactory().createCheckpointIdCounter(JOB, 1)))
                .isInstanceOf(MainThreadViolationException.class);
    }

    @Test
    void fencedWritesFromAMainThreadFailButJoiningTheElectionWorks() throws Exception {
        RecordingContender contender = new RecordingContender("jm-1");
        LeaderElection election = ha.jobLeaderElection(JOB, "jm-1");
        assertThat(failureOnMainThread(() -> election.startLeaderElection(contender))).isNull();
        UUID session = contender.awaitGrant();

        assertThat(failureOnMainThread(() -> election.runIfLeader(session, () -> { })))
                .isInstanceOf(MainThreadViolationException.class)
                .hasMessageContaining("fenced HA write of job-" + JOB);
        assertThat(failureOnMainThread(() -> assertThat(election.hasLeadership(session)).isTrue())).isNull();
    }
}
