package io.sluice.ha.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.ha.LeaderContender;
import io.sluice.ha.LeaderElection;
import io.sluice.ha.LeadershipLostException;
import io.sluice.ha.RecoveryListener;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A checkpoint's pointer write that fails after it started may still have landed, and then the
 * checkpoint's files must survive: the ZooKeeper chaos run with seed 18 once ended with a pointer to
 * chk-1 whose files were gone, so the job could never be recovered. The sequence, forced here step by
 * step (manual main thread and I/O executor): the job master's pointer write of checkpoint 1 is sent,
 * then the revocation (its ZooKeeper session expired) interrupts the writer, which reports
 * {@link LeadershipLostException} although the transaction was applied; the coordinator took that for
 * "no pointer" and deleted chk-1. The next leader found the pointer and no metadata.
 */
class PointerWriteInDoubtTest {
    private static final JobId JOB = JobId.of("0f1e2d3c4b5a69788796a5b4c3d2e1f0");
    private static final Duration INTERVAL = Duration.ofSeconds(1);

    @TempDir
    Path checkpointDir;
    @TempDir
    Path haDir;

    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("in-doubt-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final ExecutionAttemptId source = new ExecutionAttemptId(JOB, 1, 0, 1);
    private final ExecutionAttemptId counter = new ExecutionAttemptId(JOB, 2, 0, 1);
    private final List<Long> notified = new ArrayList<>();
    private CheckpointStorage storage;
    private FileCheckpointPointerStore pointers;
    private final RevokedDuringWriteElection election = new RevokedDuringWriteElection();

    @Test
    void aPointerWriteCutOffByTheRevocationAfterItLandedKeepsTheFilesItNames() throws Exception {
        CheckpointCoordinator coordinator = startedCoordinator();
        long id = triggerAndAcknowledge(coordinator, storage);

        election.revokeDuringNextWrite = true;
        io.triggerAll(); // metadata and pointer write: the pointer lands, then the writer is interrupted
        mainThread.triggerAll();
        io.triggerAll(); // whatever the coordinator queued after the failure

        assertThat(pointers.checkpointIds(JOB)).as("the pointer landed").containsExactly(id);
        assertThat(checkpointDir.resolve(storage.metadataPath(JOB, id))).as("the files it names are kept")
                .isRegularFile();
        assertThat(notified).as("not counted as completed: the tasks are not told").isEmpty();
        assertThat(onMainGet(coordinator)).isZero();

        // The next leader recovers from that pointer (before the fix: "None of the 1 retained
        // checkpoints ... could be read (chk-1: missing)", and the job waited for ever).
        RevokedDuringWriteElection next = new RevokedDuringWriteElection();
        DefaultCompletedCheckpointStore recovered = DefaultCompletedCheckpointStore.recover(pointers, JOB, 3, storage,
                next, next.grant(), false, RecoveryListener.NONE);
        CompletedCheckpoint latest = recovered.latest().orElseThrow();
        assertThat(latest.checkpointId()).isEqualTo(id);
        assertThat(storage.readTaskState(latest.taskStates().get(1).stateFile())).containsExactly(1, 2, 3);
    }

    @Test
    void aPointerWriteRefusedBeforeItStartedDiscardsTheFilesAsBefore() throws Exception {
        CheckpointCoordinator coordinator = startedCoordinator();
        long id = triggerAndAcknowledge(coordinator, storage);

        election.current = null; // revoked before the write: the election refuses it, nothing is sent
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll();

        assertThat(pointers.checkpointIds(JOB)).isEmpty();
        assertThat(checkpointDir.resolve(JOB.value()).resolve("chk-" + id)).as("no pointer names it: discarded")
                .doesNotExist();
        assertThat(onMainGet(coordinator)).isZero();
    }

    // ------------------------------------------------------------------ harness

    /** A started coordinator on a store of pointer files, in a session that {@link #election} granted. */
    private CheckpointCoordinator startedCoordinator() {
        storage = new CheckpointStorage(new LocalFileBlobStore(checkpointDir), new SimpleMeterRegistry());
        pointers = new FileCheckpointPointerStore(haDir.resolve("checkpoints"));
        UUID session = election.grant();
        CheckpointCoordinator coordinator = coordinator(storage,
                new DefaultCompletedCheckpointStore(JOB, 3, pointers, storage, election, session, null, List.of()));
        onMain(coordinator::start);
        return coordinator;
    }

    private CheckpointCoordinator coordinator(CheckpointStorage storage, DefaultCompletedCheckpointStore store) {
        JobConfig config = new JobConfig(INTERVAL, Duration.ofMinutes(1), 3, 0, checkpointDir.toString(),
                new NoRestart(), false);
        return new CheckpointCoordinator(JOB, config, storage, store, new InMemoryCheckpointIdCounter(1), mainThread, io,
                clock, new CheckpointCoordinator.Context() {
                    @Override
                    public boolean canTriggerCheckpoint() {
                        return true;
                    }

                    @Override
                    public List<ExecutionAttemptId> tasksToTrigger() {
                        return List.of(source);
                    }

                    @Override
                    public List<ExecutionAttemptId> tasksToAcknowledge() {
                        return List.of(source, counter);
                    }

                    @Override
                    public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
                    }

                    @Override
                    public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
                        notified.add(checkpointId);
                    }

                    @Override
                    public void failJob(Throwable cause) {
                        throw new AssertionError("no checkpoint failure here may fail the job", cause);
                    }
                }, () -> true);
    }

    /** Triggers the next checkpoint and lets both tasks acknowledge (the counter with a state file). */
    private long triggerAndAcknowledge(CheckpointCoordinator coordinator, CheckpointStorage storage) {
        mainThread.advanceTime(INTERVAL);
        io.triggerAll(); // the id
        mainThread.triggerAll();
        long id = 1;
        String file = storage.writeTaskState(JOB, id, 2, 0, new byte[] {1, 2, 3});
        onMain(() -> coordinator.acknowledgeCheckpoint(source, id,
                new TaskStateHandle(1, 0, null, 0, new byte[] {7}, null)));
        onMain(() -> coordinator.acknowledgeCheckpoint(counter, id,
                new TaskStateHandle(2, 0, file, 3, null, new KeyGroupRange(0, 127))));
        assertThat(io.numQueued()).as("the metadata and pointer write is queued").isEqualTo(1);
        return id;
    }

    private void onMain(Runnable r) {
        mainThread.execute(r);
        mainThread.triggerAll();
    }

    /** The completed count of the coordinator's stats, read on its main thread. */
    private long onMainGet(CheckpointCoordinator coordinator) {
        long[] completed = new long[1];
        onMain(() -> completed[0] = coordinator.stats().completed());
        return completed[0];
    }

    /**
     * An election whose session the test sets. With {@link #revokeDuringNextWrite}, the next fenced
     * write runs to its end and is then cut off by the revocation, as {@link LeaderElection#runIfLeader}
     * on ZooKeeper reports a writer interrupted by a revocation after its transaction was sent: the
     * session is gone and the write fails with {@link LeadershipLostException}, although it landed.
     */
    private static final class RevokedDuringWriteElection implements LeaderElection {
        volatile UUID current;
        volatile boolean revokeDuringNextWrite;

        UUID grant() {
            current = UUID.randomUUID();
            return current;
        }

        @Override
        public void startLeaderElection(LeaderContender contender) {
        }

        @Override
        public boolean hasLeadership(UUID leaderSessionId) {
            return leaderSessionId.equals(current);
        }

        @Override
        public synchronized void runIfLeader(UUID leaderSessionId, FencedWrite write) throws Exception {
            if (!hasLeadership(leaderSessionId)) {
                throw new LeadershipLostException("session " + leaderSessionId + " does not lead; not written");
            }
            write.run();
            if (revokeDuringNextWrite) {
                revokeDuringNextWrite = false;
                current = null;
                throw new LeadershipLostException("session " + leaderSessionId + " lost leadership while a write was"
                        + " in flight; the write was interrupted (java.lang.InterruptedException)");
            }
        }

        @Override
        public void close() {
        }
    }
}
