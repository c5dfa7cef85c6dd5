package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.taskexecutor.ExecutionAttemptId;
import io.sluice.testutil.ManualExecutor;
import io.sluice.testutil.ManuallyTriggeredMainThreadExecutor;
import io.sluice.util.ManualClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint coordinator on its own, with a recording {@link CheckpointCoordinator.Context}:
 * the main thread and the I/O executor are triggered by the test, time is a {@link ManualClock},
 * and checkpoints are written to real {@link CheckpointStorage} in a temporary directory.
 */
class CheckpointCoordinatorTest {
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Duration TIMEOUT = Duration.ofMinutes(1);
    private static final Duration MS = Duration.ofMillis(1);

    @TempDir
    Path root;

    private final JobId job = JobId.of("0123456789abcdef0123456789abcdef");
    private final ManualClock clock = new ManualClock();
    private final ManuallyTriggeredMainThreadExecutor mainThread =
            new ManuallyTriggeredMainThreadExecutor("coordinator-test", clock);
    private final ManualExecutor io = new ManualExecutor();
    private final AtomicBoolean writesAllowed = new AtomicBoolean(true);
    private final TestContext context = new TestContext();

    private final ExecutionAttemptId source0 = new ExecutionAttemptId(job, 1, 0, 5);
    private final ExecutionAttemptId source1 = new ExecutionAttemptId(job, 1, 1, 5);
    private final ExecutionAttemptId keyed0 = new ExecutionAttemptId(job, 2, 0, 5);
    private final ExecutionAttemptId keyed1 = new ExecutionAttemptId(job, 2, 1, 5);
    private final List<ExecutionAttemptId> all = List.of(source0, source1, keyed0, keyed1);

    private CheckpointStorage storage;
    private StandaloneCompletedCheckpointStore store;
    private CheckpointCoordinator coordinator;

    // ------------------------------------------------------------------ triggering

    @Test
    void triggersPeriodicallyOnTheManualClockToSourcesOnlyAndNeverTwiceWhilePending() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);

        mainThread.advanceTime(INTERVAL.minus(MS));
        assertThat(io.numQueued()).as("nothing before the interval").isZero();
        assertThat(context.triggers).isEmpty();

        mainThread.advanceTime(MS);
        assertThat(io.numQueued()).as("the id is taken on the I/O executor").isEqualTo(1);
        assertThat(context.triggers).as("not before the id came back").isEmpty();
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(context.triggers).containsExactly(
                new Trigger(source0, 1, clock.currentTimeMillis()), new Trigger(source1, 1, clock.currentTimeMillis()));
        assertThat(onMain(coordinator::hasPendingCheckpoint)).isTrue();

        mainThread.advanceTime(INTERVAL.multipliedBy(3));
        assertThat(io.numQueued()).as("no second trigger while one is pending").isZero();
        assertThat(context.triggers).hasSize(2);
    }

    @Test
    void doesNotTriggerWhileTasksDoNotAllRun() {
        create(INTERVAL, TIMEOUT, 2, 3);
        context.canTrigger = false;
        onMain(coordinator::start);

        mainThread.advanceTime(INTERVAL.multipliedBy(2));
        assertThat(io.numQueued()).isZero();

        context.canTrigger = true;
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).extracting(Trigger::checkpointId).containsExactly(1L, 1L);
    }

    // ------------------------------------------------------------------ completion

    @Test
    void completesAfterAllAcknowledgementsWritesMetadataAndNotifiesAllTasks() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        clock.advance(Duration.ofMillis(250));

        acknowledge(source0, id);
        acknowledge(source1, id);
        acknowledge(keyed0, id);
        assertThat(io.numQueued()).as("still waiting for one task").isZero();
        acknowledge(keyed1, id);

        assertThat(io.numQueued()).as("metadata and pointer write").isEqualTo(1);
        assertThat(storage.metadataWrites()).isZero();
        io.triggerAll();
        assertThat(root.resolve(storage.metadataPath(job, id))).isRegularFile();
        assertThat(storage.metadataWrites()).isEqualTo(1);
        assertThat(store.retainedIds()).containsExactly(id);
        assertThat(context.notifications).as("only after the main thread saw the completion").isEmpty();

        mainThread.triggerAll();

        assertThat(context.notifications).containsExactlyInAnyOrder(
                new Notification(source0, id), new Notification(source1, id),
                new Notification(keyed0, id), new Notification(keyed1, id));
        assertThat(onMain(coordinator::hasPendingCheckpoint)).isFalse();
        CompletedCheckpoint latest = store.latest().orElseThrow();
        assertThat(latest.metadataPath()).isEqualTo(storage.metadataPath(job, id));
        assertThat(latest.taskStates()).hasSize(4);
        assertThat(storage.readMetadata(latest.metadataPath())).isEqualTo(latest);
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.completed()).isEqualTo(1);
        assertThat(stats.failed()).isZero();
        assertThat(stats.latestCompletedId()).isEqualTo(id);
        assertThat(stats.latestDurationMillis()).isEqualTo(250);
    }

    @Test
    void statsKeepDurationAndStateSizeOfTheRecentCheckpointsOldestFirst() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long first = triggerNext();
        long firstTriggeredAt = clock.currentTimeMillis();
        clock.advance(Duration.ofMillis(40));
        completeCheckpoint(first);
        long second = triggerNext();
        long secondTriggeredAt = clock.currentTimeMillis();
        clock.advance(Duration.ofNanos(7_500_000));
        completeCheckpoint(second);

        CheckpointStats stats = onMain(coordinator::stats);
        // Two keyed subtasks with a 3-byte state file each; the sources' positions are not state files.
        assertThat(stats.recent()).containsExactly(
                new CompletedCheckpointStats(first, firstTriggeredAt, 40_000_000L, 6),
                new CompletedCheckpointStats(second, secondTriggeredAt, 7_500_000L, 6));
        assertThat(stats.recent().get(1).durationMillis()).isEqualTo(7.5);
        assertThat(stats.latestDurationMillis()).isEqualTo(7);

        for (int i = 0; i < CheckpointStats.RECENT_LIMIT; i++) {
            completeCheckpoint(triggerNext());
        }
        List<CompletedCheckpointStats> recent = onMain(coordinator::stats).recent();
        assertThat(recent).as("only the latest are kept").hasSize(CheckpointStats.RECENT_LIMIT);
        assertThat(recent.get(0).checkpointId()).isEqualTo(second + 1);
        assertThat(recent.get(recent.size() - 1).checkpointId()).isEqualTo(second + CheckpointStats.RECENT_LIMIT);
        assertThat(CheckpointStats.NONE.recent()).isEmpty();
    }

    @Test
    void retentionDiscardsSubsumedCheckpointsOnTheIoExecutor() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        completeCheckpoint(triggerNext());
        completeCheckpoint(triggerNext());
        assertThat(checkpointDir(1)).isDirectory();

        long third = triggerNext();
        acknowledgeAll(third);
        io.triggerAll(); // metadata and pointer
        mainThread.triggerAll(); // completion: queues the discard of checkpoint 1

        assertThat(store.retainedIds()).containsExactly(2L, 3L);
        assertThat(io.numQueued()).isEqualTo(1);
        assertThat(checkpointDir(1)).as("discarded asynchronously, not yet").isDirectory();
        io.triggerAll();
        assertThat(checkpointDir(1)).doesNotExist();
        assertThat(checkpointDir(2)).isDirectory();
        assertThat(checkpointDir(3)).isDirectory();
        assertThat(root.resolve(storage.metadataPath(job, 3))).isRegularFile();
    }

    @Test
    void aSubsumedCheckpointBeingRestoredFromIsDiscardedOnlyOnceTheRestoreFinished() {
        create(INTERVAL, TIMEOUT, 1, 3);
        onMain(coordinator::start);
        completeCheckpoint(triggerNext());
        onMain(() -> coordinator.restoreStarting(1));

        completeCheckpoint(triggerNext());

        assertThat(store.retainedIds()).containsExactly(2L);
        assertThat(checkpointDir(1)).as("pinned by the restore").isDirectory();
        assertThat(onMain(coordinator::postponedDiscards)).containsExactly(1L);

        onMain(coordinator::restoreFinished);
        io.triggerAll();
        assertThat(checkpointDir(1)).doesNotExist();
        assertThat(onMain(coordinator::postponedDiscards)).isEmpty();

        completeCheckpoint(triggerNext());
        assertThat(checkpointDir(2)).as("no pin any more: retention as usual").doesNotExist();
        assertThat(checkpointDir(3)).isDirectory();
    }

    // ------------------------------------------------------------------ failures

    @Test
    void timeoutAbortsDeletesThePendingCheckpointsFilesAndCountsAFailure() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledge(keyed0, id);
        storage.writeTaskState(job, id, 2, 1, new byte[] {7}); // written, but never acknowledged
        assertThat(checkpointDir(id)).isDirectory();

        mainThread.advanceTime(TIMEOUT.minus(MS));
        assertThat(onMain(coordinator::hasPendingCheckpoint)).isTrue();
        mainThread.advanceTime(MS);

        assertThat(onMain(coordinator::hasPendingCheckpoint)).isFalse();
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.failed()).isEqualTo(1);
        assertThat(stats.consecutiveFailures()).isEqualTo(1);
        assertThat(stats.lastFailure()).contains("Checkpoint 1 failed").contains("timeout").contains("3 task(s)");
        assertThat(context.failures).as("one failure is tolerated").isEmpty();
        assertThat(checkpointDir(id)).as("deleted on the I/O executor").isDirectory();
        io.triggerAll();
        assertThat(checkpointDir(id)).doesNotExist();
        assertThat(storage.metadataWrites()).isZero();
        assertThat(store.size()).isZero();
    }

    @Test
    void aDeclineAbortsThePendingCheckpoint() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledge(keyed0, id);

        onMain(() -> coordinator.declineCheckpoint(keyed1, id, new IllegalStateException("no buffers")));

        assertThat(onMain(coordinator::hasPendingCheckpoint)).isFalse();
        assertThat(onMain(coordinator::stats).lastFailure()).contains("declined").contains("no buffers");
        assertThat(onMain(coordinator::stats).failed()).isEqualTo(1);
        io.triggerAll();
        assertThat(checkpointDir(id)).doesNotExist();

        acknowledge(source0, id);
        acknowledge(source1, id);
        acknowledge(keyed1, id); // writes a state file, so its late upload is discarded again
        io.triggerAll();
        assertThat(storage.metadataWrites()).as("acks of an aborted checkpoint complete nothing").isZero();
        assertThat(store.size()).isZero();
        assertThat(checkpointDir(id)).doesNotExist();
    }

    @Test
    void consecutiveFailuresBeyondTheToleranceFailTheJobOnce() {
        create(INTERVAL, TIMEOUT, 2, 1);
        onMain(coordinator::start);

        decline(triggerNext());
        assertThat(context.failures).isEmpty();
        completeCheckpoint(triggerNext());
        decline(triggerNext());
        assertThat(context.failures).as("a completed checkpoint resets the count").isEmpty();

        decline(triggerNext());

        assertThat(context.failures).hasSize(1);
        assertThat(context.failures.get(0)).isInstanceOf(CheckpointException.class)
                .hasMessageContaining("tolerable number of consecutive checkpoint failures (1)");
        decline(triggerNext());
        assertThat(context.failures).as("the count starts over after failing the job").hasSize(1);
        assertThat(onMain(coordinator::stats).failed()).isEqualTo(4);
    }

    @Test
    void statsTellSinceWhenCheckpointsFailWhichCheckpointWasRestoredAndWhetherStateWasInline() {
        create(INTERVAL, TIMEOUT, 2, 10);
        onMain(coordinator::start);
        assertThat(onMain(coordinator::stats).failingSinceMillis()).isEqualTo(-1);
        assertThat(onMain(coordinator::stats).restoredCheckpointId()).isEqualTo(-1);

        long firstFailureAt = clock.currentTimeMillis() + INTERVAL.toMillis();
        decline(triggerNext());
        decline(triggerNext());
        CheckpointStats failing = onMain(coordinator::stats);
        assertThat(failing.consecutiveFailures()).isEqualTo(2);
        assertThat(failing.failingSinceMillis()).as("the first of the consecutive failures").isEqualTo(firstFailureAt);

        completeCheckpoint(triggerNext());
        CheckpointStats ok = onMain(coordinator::stats);
        assertThat(ok.failingSinceMillis()).as("reset by a completed checkpoint").isEqualTo(-1);
        assertThat(ok.recent().get(ok.recent().size() - 1).inline()).as("the keyed subtasks wrote state files").isFalse();

        onMain(() -> coordinator.restoreStarting(ok.latestCompletedId()));
        assertThat(onMain(coordinator::stats).restoredCheckpointId()).isEqualTo(ok.latestCompletedId());
    }

    @Test
    void aLateAcknowledgementOfAnAbortedCheckpointCleansUpItsFiles() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        decline(id);
        io.triggerAll();
        assertThat(checkpointDir(id)).doesNotExist();

        // The task was still uploading when the checkpoint was aborted.
        String file = storage.writeTaskState(job, id, 2, 0, new byte[] {1, 2});
        onMain(() -> coordinator.acknowledgeCheckpoint(keyed0, id, new TaskStateHandle(2, 0, file, 2, null,
                new KeyGroupRange(0, 63))));

        assertThat(root.resolve(file)).isRegularFile();
        io.triggerAll();
        assertThat(root.resolve(file)).doesNotExist();
        assertThat(checkpointDir(id)).doesNotExist();
        assertThat(store.size()).isZero();
    }

    @Test
    void withoutWritesAllowedNoCheckpointCompletesAndNoMetadataIsWritten() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        writesAllowed.set(false);

        acknowledgeAll(id);
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(storage.metadataWrites()).isZero();
        assertThat(root.resolve(storage.metadataPath(job, id))).doesNotExist();
        assertThat(store.size()).isZero();
        assertThat(context.notifications).isEmpty();
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.completed()).isZero();
        assertThat(stats.failed()).isEqualTo(1);
        assertThat(stats.lastFailure()).contains("no longer the leader");
        io.triggerAll();
        assertThat(checkpointDir(id)).as("its state files are discarded").doesNotExist();
    }

    @Test
    void stopAbortsThePendingCheckpointWithoutCountingAFailure() {
        create(INTERVAL, TIMEOUT, 2, 0);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledge(keyed0, id);

        onMain(() -> coordinator.stop("test"));
        io.triggerAll();

        assertThat(onMain(coordinator::hasPendingCheckpoint)).isFalse();
        assertThat(onMain(coordinator::stats).failed()).isZero();
        assertThat(context.failures).isEmpty();
        assertThat(checkpointDir(id)).doesNotExist();
        mainThread.advanceTime(INTERVAL.multipliedBy(10));
        assertThat(io.numQueued()).as("no trigger after stop").isZero();
    }

    // ------------------------------------------------------------------ harness

    record Trigger(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
    }

    record Notification(ExecutionAttemptId task, long checkpointId) {
    }

    /** Sources get the trigger, all four tasks acknowledge; every call is recorded. */
    private final class TestContext implements CheckpointCoordinator.Context {
        volatile boolean canTrigger = true;
        final List<Trigger> triggers = new ArrayList<>();
        final List<Notification> notifications = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();

        @Override
        public boolean canTriggerCheckpoint() {
            return canTrigger;
        }

        @Override
        public List<ExecutionAttemptId> tasksToTrigger() {
            return List.of(source0, source1);
        }

        @Override
        public List<ExecutionAttemptId> tasksToAcknowledge() {
            return all;
        }

        @Override
        public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
            triggers.add(new Trigger(task, checkpointId, timestampMillis));
        }

        @Override
        public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
            notifications.add(new Notification(task, checkpointId));
        }

        @Override
        public void failJob(Throwable cause) {
            failures.add(cause);
        }
    }

    private void create(Duration interval, Duration timeout, int retained, int tolerableFailures) {
        JobConfig config = new JobConfig(interval, timeout, retained, tolerableFailures, root.toString(),
                new NoRestart(), false);
        storage = new CheckpointStorage(new LocalFileBlobStore(root), new SimpleMeterRegistry());
        store = new StandaloneCompletedCheckpointStore(job, retained, storage);
        coordinator = new CheckpointCoordinator(job, config, storage, store, new InMemoryCheckpointIdCounter(1),
                mainThread, io, clock, context, writesAllowed::get);
    }

    /** Advances to the next periodic trigger and lets it reach the sources; returns its id. */
    private long triggerNext() {
        int before = context.triggers.size();
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).as("a trigger went out").hasSize(before + 2);
        return context.triggers.get(context.triggers.size() - 1).checkpointId();
    }

    private void acknowledge(ExecutionAttemptId task, long id) {
        TaskStateHandle handle;
        if (task.vertexId() == 1) {
            handle = new TaskStateHandle(1, task.subtaskIndex(), null, 0, new byte[] {(byte) id}, null);
        } else {
            byte[] data = {1, 2, 3};
            String file = storage.writeTaskState(job, id, task.vertexId(), task.subtaskIndex(), data);
            handle = new TaskStateHandle(task.vertexId(), task.subtaskIndex(), file, data.length, null,
                    new KeyGroupRange(task.subtaskIndex() * 64, task.subtaskIndex() * 64 + 63));
        }
        onMain(() -> coordinator.acknowledgeCheckpoint(task, id, handle));
    }

    private void acknowledgeAll(long id) {
        for (ExecutionAttemptId task : all) {
            acknowledge(task, id);
        }
    }

    private void completeCheckpoint(long id) {
        acknowledgeAll(id);
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll(); // discards of subsumed checkpoints, if any
        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(id);
    }

    private void decline(long id) {
        onMain(() -> coordinator.declineCheckpoint(source0, id, new RuntimeException("declined in test")));
        io.triggerAll();
    }

    private Path checkpointDir(long id) {
        return root.resolve(job.value()).resolve("chk-" + id);
    }

    private void onMain(Runnable r) {
        mainThread.execute(r);
        mainThread.triggerAll();
    }

    private <T> T onMain(Supplier<T> fn) {
        AtomicReference<T> result = new AtomicReference<>();
        mainThread.execute(() -> result.set(fn.get()));
        mainThread.triggerAll();
        return result.get();
    }
}
