package io.sluice.checkpoint.coordinator;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.InMemoryCheckpointIdCounter;
import io.sluice.checkpoint.StandaloneCompletedCheckpointStore;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.JobStatus;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Outcomes of a checkpoint's finalization that the end-to-end suites reach only by chance under
 * hung storage or a leadership change, driven here step by step: the main thread and the I/O
 * executor are triggered by the test, time is a {@link ManualClock}, and the pointer write can run
 * a hook in the middle (the test's way to let the timeout fire while the pointer is being written).
 */
class CheckpointCommitOutcomesTest {
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    /** Not a multiple of the interval: no trigger at the instant of the timeout. */
    private static final Duration TIMEOUT = Duration.ofSeconds(55);

    @TempDir
    Path root;

    private final JobId job = JobId.of("0123456789abcdef0123456789abcdef");
    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("commit-outcomes-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final AtomicBoolean writesAllowed = new AtomicBoolean(true);
    private final ExecutionAttemptId source = new ExecutionAttemptId(job, 1, 0, 3);
    private final ExecutionAttemptId keyed = new ExecutionAttemptId(job, 2, 0, 3);
    private final List<Long> triggered = new ArrayList<>();
    private final List<Long> notified = new ArrayList<>();
    private final List<Throwable> jobFailures = new ArrayList<>();
    /** Runs inside the pointer write, before the store takes the checkpoint; null: nothing. */
    private final AtomicReference<Runnable> duringPointerWrite = new AtomicReference<>();

    private CheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private CheckpointCoordinator coordinator;

    @Test
    void aPointerThatLandsAfterTheTimeoutKeepsTheCheckpointAsARestorePointWithoutCountingOrNotifyingIt() {
        create(3);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledgeBoth(id);
        // The timeout fires while the pointer is being written; later intervals pass too.
        duringPointerWrite.set(() -> mainThread.advanceTime(TIMEOUT.plus(INTERVAL.multipliedBy(2))));

        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll();

        assertThat(triggered).as("no checkpoint started while the pointer write lingered").containsExactly(id);

        assertThat(store.retainedIds()).as("the pointer landed: a valid restore point").containsExactly(id);
        assertThat(checkpointDir(id)).as("its files are kept: the pointer names them").isDirectory();
        assertThat(notified).as("not completed: its tasks are not told").isEmpty();
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.completed()).isZero();
        assertThat(stats.failed()).isEqualTo(1);
        assertThat(stats.lastFailure()).contains("Checkpoint " + id + " failed (finalization timeout)")
                .contains("persisting the checkpoint pointer");
        assertThat(jobFailures).as("a timeout never fails the job").isEmpty();

        duringPointerWrite.set(null);
        long next = triggerNext();
        assertThat(next).isGreaterThan(id);
        acknowledgeBoth(next);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(next);
        assertThat(onMain(coordinator::stats).failing()).as("checkpoints succeed again").isFalse();
        assertThat(notified).containsExactly(next, next);
    }

    @Test
    void leadershipLostDuringFinalizationIsClassifiedAsSuchAndNeverCountsTowardsTheTolerance() {
        create(0);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledgeBoth(id);
        writesAllowed.set(false); // revoked before the metadata write

        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll();

        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.failed()).isEqualTo(1);
        assertThat(stats.lastFailure()).contains("Checkpoint " + id + " failed (leadership lost)")
                .contains("no longer the leader");
        assertThat(jobFailures).as("not the tasks' fault: a tolerance of 0 is not exceeded").isEmpty();
        assertThat(store.size()).isZero();
        assertThat(checkpointDir(id)).as("no pointer was written: its files go").doesNotExist();
    }

    // ------------------------------------------------------------------ harness

    private void create(int tolerableFailures) {
        JobConfig config = new JobConfig(INTERVAL, TIMEOUT, 2, tolerableFailures, root.toString(), new NoRestart(),
                false);
        storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        store = new StandaloneCompletedCheckpointStore(job, 2, storage);
        coordinator = new CheckpointCoordinator(job, config, storage, new HookedStore(store),
                new InMemoryCheckpointIdCounter(1), mainThread, io, clock, new RecordingContext(), writesAllowed::get);
    }

    /** Advances to the next periodic trigger and lets its id come back; returns the id. */
    private long triggerNext() {
        int before = triggered.size();
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(triggered).as("a trigger went out").hasSize(before + 1);
        return triggered.get(triggered.size() - 1);
    }

    /** The source acknowledges inline, the keyed task with a state file, as tasks do. */
    private void acknowledgeBoth(long id) {
        String file = storage.writeTaskState(job, id, keyed.vertexId(), 0, new byte[] {1, 2, 3});
        TaskStateHandle keyedState = new TaskStateHandle(keyed.vertexId(), 0, file, 3, null, new KeyGroupRange(0, 127));
        TaskStateHandle sourceState = new TaskStateHandle(source.vertexId(), 0, null, 0, new byte[] {(byte) id}, null);
        onMain(() -> {
            coordinator.acknowledgeCheckpoint(source, id, sourceState);
            coordinator.acknowledgeCheckpoint(keyed, id, keyedState);
            return null;
        });
    }

    private Path checkpointDir(long id) {
        return root.resolve(job.value()).resolve("chk-" + id);
    }

    private <T> T onMain(Supplier<T> fn) {
        AtomicReference<T> result = new AtomicReference<>();
        mainThread.execute(() -> result.set(fn.get()));
        mainThread.triggerAll();
        return result.get();
    }

    private void onMain(Runnable r) {
        onMain(() -> {
            r.run();
            return null;
        });
    }

    /** One source (triggered) and one keyed task; records triggers, notifications and job failures. */
    private final class RecordingContext implements CheckpointCoordinator.Context {
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
            return List.of(source, keyed);
        }

        @Override
        public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
            triggered.add(checkpointId);
        }

        @Override
        public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
            notified.add(checkpointId);
        }

        @Override
        public void failJob(Throwable cause) {
            jobFailures.add(cause);
        }
    }

    /** The standalone store, running {@link #duringPointerWrite} inside each pointer write. */
    private final class HookedStore implements CompletedCheckpointStore {
        private final CompletedCheckpointStore delegate;

        HookedStore(CompletedCheckpointStore delegate) {
            this.delegate = delegate;
        }

        @Override
        public List<Long> addCheckpoint(CompletedCheckpoint checkpoint) throws Exception {
            Runnable hook = duringPointerWrite.get();
            if (hook != null) {
                hook.run();
            }
            return delegate.addCheckpoint(checkpoint);
        }

        @Override
        public Optional<CompletedCheckpoint> latest() {
            return delegate.latest();
        }

        @Override
        public List<Long> retainedIds() {
            return delegate.retainedIds();
        }

        @Override
        public int size() {
            return delegate.size();
        }

        @Override
        public int maxRetained() {
            return delegate.maxRetained();
        }

        @Override
        public void shutdown(JobStatus status, boolean discardCheckpoints) throws Exception {
            delegate.shutdown(status, discardCheckpoints);
        }
    }
}
