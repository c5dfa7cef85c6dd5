package io.sluice.checkpoint;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.state.KeyGroupRange;
import io.sluice.storage.FaultInjectingBlobStore;
import io.sluice.storage.StorageException;
import io.sluice.storage.LocalFileBlobStore;
import io.sluice.job.ExecutionAttemptId;
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

    private final AtomicBoolean idCounterFails = new AtomicBoolean();
    private FaultInjectingBlobStore faults;
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

    @Test
    void aFiringThatFoundTheTasksNotRunningStartsItsCheckpointAsSoonAsTheyRunNotAnIntervalLater() {
        create(INTERVAL, TIMEOUT, 2, 3);
        context.canTrigger = false; // deploying, or restoring after a failover
        onMain(coordinator::start);
        mainThread.advanceTime(INTERVAL);
        assertThat(io.numQueued()).as("the firing found the tasks not all running").isZero();

        onMain(coordinator::taskRunning); // one task runs, another still restores
        assertThat(io.numQueued()).as("not while a task restores").isZero();

        context.canTrigger = true;
        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("the missed firing's checkpoint starts with the last task running, at once")
                .isEqualTo(1);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).extracting(Trigger::checkpointId).containsExactly(1L, 1L);
        acknowledgeAllInline(1);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(store.retainedIds()).containsExactly(1L);

        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("a task report starts nothing once the missed firing was made up for").isZero();
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).as("the periodic firing goes on").extracting(Trigger::checkpointId)
                .containsExactly(1L, 1L, 2L, 2L);
    }

    @Test
    void aTaskThatStartsRunningWithoutAMissedFiringStartsNoCheckpoint() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        mainThread.advanceTime(INTERVAL.dividedBy(2));
        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).isZero();
        assertThat(context.triggers).isEmpty();

        context.canTrigger = false;
        mainThread.advanceTime(INTERVAL.dividedBy(2)); // a firing missed ...
        onMain(() -> coordinator.stop("cancelled")); // ... then checkpointing stopped
        context.canTrigger = true;
        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("nothing after stop()").isZero();
    }

    /**
     * A new job master (a job-manager failover) resumes the job from its retained checkpoints: its coordinator's
     * first checkpoint starts as soon as every task has restored, not one interval after the start; the periodic
     * firing goes on from there. (Before, it waited for the first firing: a whole interval after the restore.)
     */
    @Test
    void aCoordinatorThatResumesRetainedCheckpointsStartsItsFirstCheckpointOnceEveryTaskRuns() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        completeCheckpoint(triggerNext());
        onMain(() -> coordinator.stop("leadership lost"));

        coordinator = new CheckpointCoordinator(job, new JobConfig(INTERVAL, TIMEOUT, 2, 3, root.toString(),
                new NoRestart(), false), storage, store, new InMemoryCheckpointIdCounter(2), mainThread, io, clock,
                context, writesAllowed::get);
        context.canTrigger = false; // the tasks are being deployed and restore
        onMain(coordinator::start);
        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("not while a task restores").isZero();

        context.canTrigger = true;
        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("the first checkpoint starts when the last task runs").isEqualTo(1);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).extracting(Trigger::checkpointId).endsWith(2L, 2L);
        completeCheckpoint(2);

        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("only the first: a later task report starts nothing").isZero();
        assertThat(triggerNext()).as("then the periodic firing").isEqualTo(3);
    }

    /**
     * A task failover restores the latest checkpoint: the first checkpoint after it starts as soon as every task
     * runs again, as after a job-manager failover, not at the next periodic firing. Until 2026-12-07 it waited for
     * that firing (up to an interval later), and a second failure meanwhile replayed everything since the restored
     * checkpoint again.
     */
    @Test
    void aTaskFailoverStartsTheFirstCheckpointAfterItsRestoreAsSoonAsEveryTaskRuns() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long restored = triggerNext();
        completeCheckpoint(restored);
        mainThread.advanceTime(INTERVAL.dividedBy(3));

        onMain(coordinator::abortPendingOnFailover); // a task failed
        context.canTrigger = false;
        onMain(() -> coordinator.restoreStarting(restored)); // the new attempts restore the latest checkpoint
        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("not while a task restores").isZero();

        context.canTrigger = true;
        onMain(coordinator::taskRunning);
        onMain(coordinator::restoreFinished);
        assertThat(io.numQueued()).as("the first checkpoint after the restore starts when the last task runs")
                .isEqualTo(1);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).extracting(Trigger::checkpointId).endsWith(restored + 1, restored + 1);
        completeCheckpoint(restored + 1);

        onMain(coordinator::taskRunning);
        assertThat(io.numQueued()).as("only that one: a later task report starts nothing").isZero();
    }

    // ------------------------------------------------------------------ id guard

    @Test
    void aCounterThatWasLostOrResetNeverHandsOutAnIdAtOrBelowARetainedCheckpoint() throws Exception {
        create(INTERVAL, TIMEOUT, 3, 3);
        // The counter starts at 1 again (its file or znode was lost), but checkpoint 5 is retained.
        store.addCheckpoint(new CompletedCheckpoint(job, 5, 0, 0, List.of(), storage.metadataPath(job, 5)));
        onMain(coordinator::start);

        long id = triggerNext();
        assertThat(id).as("max(counter, latest retained + 1)").isEqualTo(6);
        for (ExecutionAttemptId task : all) {
            acknowledge(task, id);
        }
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(store.retainedIds()).containsExactly(5L, 6L);

        long next = triggerNext();
        assertThat(next).as("the counter (now at 2) stays behind; ids still increase").isEqualTo(7);
        onMain(coordinator::abortPendingOnFailover);
        assertThat(triggerNext()).as("not the aborted 7 again: its files may still be discarded").isEqualTo(8);
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.failed()).isZero();
        assertThat(stats.completed()).isEqualTo(1);
    }

    @Test
    void aCheckpointTheStoreRejectsForAReasonThatIsNotStorageIsNotAStorageFailure() {
        assertThat(CheckpointFailureReason.ofFinalization(new IllegalArgumentException(
                "Checkpoint 3 of job j is not newer than the retained checkpoints [5]; checkpoint ids must increase")))
                .isEqualTo(CheckpointFailureReason.REJECTED);
        assertThat(CheckpointFailureReason.REJECTED.cause()).isEqualTo(CheckpointFailureReason.Cause.COORDINATION);
        assertThat(CheckpointFailureReason.REJECTED.countsTowardsTolerance()).isFalse();
        assertThat(CheckpointFailureReason.ofFinalization(new java.io.UncheckedIOException(
                new java.io.IOException("No space left on device")))).isEqualTo(CheckpointFailureReason.STORAGE);
        assertThat(CheckpointFailureReason.ofFinalization(new RuntimeException("wrapped",
                new StorageException("s3://bucket refused the request")))).isEqualTo(CheckpointFailureReason.STORAGE);
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

    // ------------------------------------------------------------------ failure classes

    @Test
    void storageFailuresNeverFailTheJobAndAreReportedAsFailingSinceTheFirstUntilACheckpointCompletes() {
        create(INTERVAL, TIMEOUT, 2, 0); // not even one task failure tolerated
        onMain(coordinator::start);
        completeCheckpoint(triggerNext());
        assertThat(onMain(coordinator::stats).failing()).isFalse();

        faults.refuseConnections();
        long firstFailureAt = 0;
        for (int i = 0; i < 5; i++) {
            long id = triggerNext();
            if (i == 0) {
                firstFailureAt = clock.currentTimeMillis();
            }
            acknowledgeAllInline(id); // small state: nothing to upload
            io.triggerAll(); // the metadata write is refused
            mainThread.triggerAll();
            io.triggerAll(); // discard (refused too, logged)
        }
        // An id counter on storage that fails is a storage failure as well.
        idCounterFails.set(true);
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(context.failures).as("storage failures do not count towards the tolerance").isEmpty();
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.failed()).isEqualTo(6);
        assertThat(stats.consecutiveFailures()).isEqualTo(6);
        assertThat(stats.failingSinceMillis()).isEqualTo(firstFailureAt);
        assertThat(stats.lastFailure()).contains("failed (storage)").contains("checkpoint id").contains("disk full");
        assertThat(stats.failingSummary()).startsWith("checkpoints failing since "
                + java.time.Instant.ofEpochMilli(firstFailureAt) + ": Checkpoint failed (storage)");

        faults.heal();
        idCounterFails.set(false);
        long id = triggerNext();
        completeCheckpoint(id);
        stats = onMain(coordinator::stats);
        assertThat(stats.failing()).as("cleared by the next completed checkpoint").isFalse();
        assertThat(stats.failingSummary()).isNull();
        assertThat(stats.consecutiveFailures()).isZero();
        assertThat(stats.latestCompletedId()).isEqualTo(id);
        assertThat(context.failures).isEmpty();
    }

    @Test
    void aDeclineCausedByStorageIsNotCountedButOneCausedByTheTaskIs() {
        create(INTERVAL, TIMEOUT, 2, 1);
        onMain(coordinator::start);
        for (int i = 0; i < 4; i++) {
            long id = triggerNext();
            onMain(() -> coordinator.declineCheckpoint(keyed0, id, new io.sluice.storage.StorageException(
                    "Checkpoint storage file:///x unreachable (Connection refused) during put chk-" + id + "/2-0.state",
                    new java.net.ConnectException("Connection refused"))));
        }
        assertThat(context.failures).as("uploads refused by storage").isEmpty();
        assertThat(onMain(coordinator::stats).lastFailure()).contains("failed (storage)").contains("Connection refused");

        decline(triggerNext()); // the task's own failure
        assertThat(context.failures).as("one task failure tolerated").isEmpty();
        assertThat(onMain(coordinator::stats).lastFailure()).contains("failed (task)");
        long id = triggerNext();
        onMain(() -> coordinator.declineCheckpoint(keyed1, id,
                new io.sluice.core.serialization.SerializationException("cannot write state 'count'")));

        assertThat(context.failures).hasSize(1);
        assertThat(context.failures.get(0)).hasMessageContaining("caused by the tasks")
                .hasMessageContaining("cannot write state 'count'");
    }

    @Test
    void timeoutsAreNotCountedTowardsTheTolerance() {
        Duration timeout = INTERVAL.multipliedBy(3).dividedBy(2);
        create(INTERVAL, timeout, 2, 0);
        onMain(coordinator::start);
        for (int i = 0; i < 3; i++) {
            triggerNext();
            mainThread.advanceTime(timeout);
            io.triggerAll();
        }
        assertThat(context.failures).isEmpty();
        assertThat(onMain(coordinator::stats).lastFailure()).contains("failed (timeout)");
        assertThat(onMain(coordinator::stats).failed()).isEqualTo(3);
    }

    @Test
    void aCheckpointStuckLongerThanTenIntervalsShowsAsFailingBeforeItTimesOut() {
        create(Duration.ofSeconds(1), TIMEOUT, 2, 3);
        onMain(coordinator::start);
        mainThread.advanceTime(Duration.ofSeconds(1));
        io.triggerAll();
        mainThread.triggerAll();
        long triggeredAt = clock.currentTimeMillis();
        acknowledgeAll(1);
        // The metadata write hangs: the I/O executor does not run it.

        mainThread.advanceTime(Duration.ofSeconds(10));
        assertThat(onMain(coordinator::stats).failing()).as("10 s: not yet").isFalse();
        mainThread.advanceTime(Duration.ofMillis(1));
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.failingSinceMillis()).isEqualTo(triggeredAt);
        assertThat(stats.failingCause()).contains("Checkpoint 1 has been pending for")
                .contains("writing the metadata");
        assertThat(stats.failed()).as("not a failure yet").isZero();
    }

    @Test
    void aHungIdRequestShowsAsFailingAfterTenSecondsBeforeItTimesOut() {
        create(Duration.ofSeconds(1), TIMEOUT, 2, 3);
        onMain(coordinator::start);
        mainThread.advanceTime(Duration.ofSeconds(1));
        long requestedAt = clock.currentTimeMillis();
        assertThat(io.numQueued()).as("the id request, hung").isEqualTo(1);

        mainThread.advanceTime(Duration.ofSeconds(10));
        assertThat(onMain(coordinator::stats).failing()).as("10 s: not yet").isFalse();
        mainThread.advanceTime(MS);
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.failingSinceMillis()).isEqualTo(requestedAt);
        assertThat(stats.failingCause()).contains("id counter (HA services) has not answered for 10001 ms");
    }

    // ------------------------------------------------------------------ finalization timeout

    @Test
    void aHungFinalizationIsAbortedAtTheTimeoutAndItsLateMetadataWriteNeverCompletesIt() {
        Duration timeout = Duration.ofSeconds(55); // not a multiple of the interval: no trigger at the same instant
        create(INTERVAL, timeout, 2, 0);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledgeAll(id);
        assertThat(io.numQueued()).as("the metadata write, hung").isEqualTo(1);

        mainThread.advanceTime(timeout.minus(MS));
        assertThat(onMain(coordinator::hasPendingCheckpoint)).isTrue();
        mainThread.advanceTime(MS);

        assertThat(onMain(coordinator::hasPendingCheckpoint)).as("aborted at the timeout").isFalse();
        CheckpointStats stats = onMain(coordinator::stats);
        assertThat(stats.lastFailure()).contains("Checkpoint " + id + " failed (finalization timeout)")
                .contains("writing the metadata");
        assertThat(stats.failing()).isTrue();
        assertThat(context.failures).as("a timeout does not fail the job").isEmpty();

        // The hung write returns now. Queued: the abort's discard first, then the write.
        io.triggerAll();
        mainThread.triggerAll();
        io.triggerAll(); // the late write's own clean-up
        assertThat(store.size()).as("no pointer for an expired checkpoint").isZero();
        assertThat(checkpointDir(id)).as("its late _metadata is discarded again").doesNotExist();
        assertThat(context.notifications).isEmpty();
        assertThat(onMain(coordinator::stats).completed()).isZero();

        long next = triggerNext();
        completeCheckpoint(next);
        assertThat(onMain(coordinator::stats).failing()).isFalse();
        assertThat(store.retainedIds()).containsExactly(next);
    }

    @Test
    void aHungIdCounterCountsAgainstTheTimeoutAndItsLateIdIsDropped() {
        create(INTERVAL, TIMEOUT, 2, 0);
        onMain(coordinator::start);
        mainThread.advanceTime(INTERVAL);
        assertThat(io.numQueued()).as("the id request, hung").isEqualTo(1);

        mainThread.advanceTime(TIMEOUT);
        assertThat(onMain(coordinator::stats).lastFailure()).contains("failed (timeout)").contains("checkpoint id");
        assertThat(io.numQueued()).as("no second id request while the first hangs").isEqualTo(1);

        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).as("the late id starts nothing").isEmpty();
        long id = triggerNext();
        completeCheckpoint(id);
        assertThat(context.failures).isEmpty();
    }

    // ------------------------------------------------------------------ finished tasks

    @Test
    void aTaskThatFinishedBeforeTheTriggerIsPartOfTheCheckpointAsFinishedWithoutAcknowledging() {
        create(INTERVAL, TIMEOUT, 2, 3);
        context.finished = List.of(source1);
        onMain(coordinator::start);
        long id = triggerNext();
        for (ExecutionAttemptId task : List.of(source0, keyed0, keyed1)) {
            acknowledge(task, id);
        }
        io.triggerAll();
        mainThread.triggerAll();

        CompletedCheckpoint cp = store.latest().orElseThrow();
        assertThat(cp.checkpointId()).isEqualTo(id);
        assertThat(cp.stateOf(1, 1).isFinished()).isTrue();
        assertThat(storage.readMetadata(cp.metadataPath()).stateOf(1, 1).isFinished())
                .as("the marker survives the metadata format").isTrue();
        assertThat(context.notifications).extracting(Notification::task).containsExactlyInAnyOrder(source0, keyed0, keyed1);
    }

    @Test
    void aTaskFinishingWhileAwaitedCompletesTheCheckpointAsFinished() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledge(source0, id);
        acknowledge(keyed0, id);
        acknowledge(keyed1, id);

        onMain(() -> coordinator.taskFinished(source1, TaskStateHandle.finished(1, 1)));
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(store.latest().orElseThrow().stateOf(1, 1).isFinished()).isTrue();
        assertThat(onMain(coordinator::stats).completed()).isEqualTo(1);
    }

    // ------------------------------------------------------------------ final checkpoints

    @Test
    void tasksAwaitingTheirFinalCheckpointAreTriggeredDirectlyWithTheSourcesAndOnlyOnce() {
        create(INTERVAL, TIMEOUT, 2, 3);
        context.awaitingFinal = List.of(keyed0, source1); // a source with a chained two-phase-commit sink awaits too
        onMain(coordinator::start);
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(context.triggers).extracting(Trigger::task).containsExactly(source0, source1, keyed0);
        assertThat(context.triggers).extracting(Trigger::checkpointId).containsOnly(1L);
        completeCheckpoint(1);
        assertThat(context.notifications).extracting(Notification::task).containsExactlyInAnyOrderElementsOf(all);
    }

    @Test
    void aCheckpointOfATaskAwaitingItsFinalCheckpointCompletesAfterEverySourceFinished() {
        create(INTERVAL, TIMEOUT, 2, 3);
        context.finished = List.of(source0, source1, keyed1);
        context.awaitingFinal = List.of(keyed0);
        onMain(coordinator::start);
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();

        assertThat(context.triggers).extracting(Trigger::task).as("no source runs: the waiting task is triggered")
                .containsExactly(keyed0);
        acknowledge(keyed0, 1);
        io.triggerAll();
        mainThread.triggerAll();

        CompletedCheckpoint cp = store.latest().orElseThrow();
        assertThat(cp.checkpointId()).isEqualTo(1);
        assertThat(cp.stateOf(2, 0).isFinished()).as("its state holds its last output, uncommitted").isFalse();
        assertThat(cp.stateOf(2, 1).isFinished()).isTrue();
        assertThat(context.notifications).containsExactly(new Notification(keyed0, 1));
    }

    @Test
    void aTaskThatStartsAwaitingItsFinalCheckpointIsTriggeredForThePendingCheckpointIfItStillAwaitsIt() {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledge(source0, id);
        acknowledge(source1, id);
        acknowledge(keyed1, id);

        // keyed0's inputs ended without a barrier of this checkpoint (its sources finished before they took it)
        onMain(() -> coordinator.taskAwaitsFinalCheckpoint(keyed0));
        // keyed1 acknowledged through its input before its end: no second trigger
        onMain(() -> coordinator.taskAwaitsFinalCheckpoint(keyed1));

        assertThat(context.triggers).extracting(Trigger::task).containsExactly(source0, source1, keyed0);
        assertThat(context.triggers.get(2).checkpointId()).isEqualTo(id);
        acknowledge(keyed0, id);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(store.latest()).get().extracting(CompletedCheckpoint::checkpointId).isEqualTo(id);

        onMain(() -> coordinator.taskAwaitsFinalCheckpoint(keyed0));
        assertThat(context.triggers).as("nothing pending: the next periodic trigger reaches it").hasSize(3);
    }

    /**
     * The chaos suite's "a FINISHED job left a pointer" (smoke seed 2): the last task's FINISHED
     * completes the pending checkpoint, the job ends and its store is cleaned up while the I/O
     * executor still finalizes that checkpoint. Its pointer must not land behind the cleanup, and its
     * files go on the I/O thread (the job master's main thread may never run again).
     */
    @Test
    void aCheckpointFinalizedAfterTheJobFinishedAndItsStoreShutDownLeavesNoPointerAndNoFiles() throws Exception {
        create(INTERVAL, TIMEOUT, 2, 3);
        onMain(coordinator::start);
        long id = triggerNext();
        acknowledge(source0, id);
        acknowledge(keyed0, id);
        acknowledge(keyed1, id);
        onMain(() -> coordinator.taskFinished(source1, TaskStateHandle.finished(1, 1)));
        assertThat(io.numQueued()).as("the finalization is queued on the I/O executor").isEqualTo(1);
        onMain(() -> coordinator.stop("the job finished"));
        store.shutdown(JobStatus.FINISHED, true); // the runner's cleanup, after the result

        io.triggerAll(); // the metadata write and the pointer write, now after the cleanup
        mainThread.triggerAll();
        io.triggerAll();

        assertThat(store.retainedIds()).as("no pointer behind the cleanup").isEmpty();
        assertThat(store.latest()).isEmpty();
        assertThat(checkpointDir(id)).as("its files are discarded").doesNotExist();
        assertThat(context.notifications).isEmpty();
        assertThat(onMain(coordinator::stats).failed()).as("the job ended: not a failure").isZero();
    }

    @Test
    void theMetricsListenerIsToldSinceWhenCheckpointsFailAndWhenTheySucceedAgain() {
        create(INTERVAL, TIMEOUT, 2, 3);
        List<Long> told = new ArrayList<>();
        onMain(() -> coordinator.setMetricsListener(new CheckpointMetricsListener() {
            @Override
            public void checkpointCompleted(CompletedCheckpointStats stats) {
            }

            @Override
            public void checkpointFailed() {
            }

            @Override
            public void failingSinceChanged(long sinceMillis) {
                told.add(sinceMillis);
            }
        }));
        assertThat(told).as("the current state when the listener is set").containsExactly(-1L);
        onMain(coordinator::start);

        faults.refuseConnections();
        long first = triggerNext();
        long failedAt = clock.currentTimeMillis();
        acknowledgeAllInline(first);
        io.triggerAll();
        mainThread.triggerAll();
        long second = triggerNext();
        acknowledgeAllInline(second);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(onMain(coordinator::stats).failed()).isEqualTo(2);
        assertThat(told).as("once, at the first failure").containsExactly(-1L, failedAt);

        faults.heal();
        long third = triggerNext();
        acknowledgeAllInline(third);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(told).as("cleared by the completion").containsExactly(-1L, failedAt, -1L);
    }

    // ------------------------------------------------------------------ harness

    record Trigger(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
    }

    record Notification(ExecutionAttemptId task, long checkpointId) {
    }

    /** Sources get the trigger, all four tasks acknowledge; every call is recorded. */
    private final class TestContext implements CheckpointCoordinator.Context {
        volatile boolean canTrigger = true;
        List<ExecutionAttemptId> finished = List.of();
        List<ExecutionAttemptId> awaitingFinal = List.of();
        final List<Trigger> triggers = new ArrayList<>();
        final List<Notification> notifications = new ArrayList<>();
        final List<Throwable> failures = new ArrayList<>();

        @Override
        public boolean canTriggerCheckpoint() {
            return canTrigger;
        }

        @Override
        public List<ExecutionAttemptId> tasksToTrigger() {
            return List.of(source0, source1).stream().filter(t -> !finished.contains(t)).toList();
        }

        @Override
        public List<ExecutionAttemptId> tasksAwaitingFinalCheckpoint() {
            return awaitingFinal;
        }

        @Override
        public List<ExecutionAttemptId> tasksToAcknowledge() {
            return all.stream().filter(t -> !finished.contains(t)).toList();
        }

        @Override
        public List<TaskStateHandle> finishedTaskStates() {
            return finished.stream().map(t -> TaskStateHandle.finished(t.vertexId(), t.subtaskIndex())).toList();
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
        faults = new FaultInjectingBlobStore(new LocalFileBlobStore(root));
        storage = new CheckpointStorage(faults, new SimpleMeterRegistry());
        store = new StandaloneCompletedCheckpointStore(job, retained, storage);
        InMemoryCheckpointIdCounter ids = new InMemoryCheckpointIdCounter(1);
        CheckpointIdCounter counter = new CheckpointIdCounter() {
            @Override
            public long getAndIncrement() throws Exception {
                if (idCounterFails.get()) {
                    throw new java.io.IOException("Could not persist the checkpoint id counter (injected: disk full)");
                }
                return ids.getAndIncrement();
            }

            @Override
            public long peek() throws Exception {
                return ids.peek();
            }
        };
        coordinator = new CheckpointCoordinator(job, config, storage, store, counter,
                mainThread, io, clock, context, writesAllowed::get);
    }

    /** Advances to the next periodic trigger and lets it reach the sources; returns its id. */
    private long triggerNext() {
        int before = context.triggers.size();
        mainThread.advanceTime(INTERVAL);
        io.triggerAll();
        mainThread.triggerAll();
        assertThat(context.triggers).as("a trigger went out").hasSize(before + context.tasksToTrigger().size());
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

    /** Every task acknowledges with its state inline, so nothing is written before the metadata. */
    private void acknowledgeAllInline(long id) {
        for (ExecutionAttemptId task : all) {
            TaskStateHandle handle = task.vertexId() == 1
                    ? new TaskStateHandle(1, task.subtaskIndex(), null, 0, new byte[] {(byte) id}, null)
                    : TaskStateHandle.inline(task.vertexId(), task.subtaskIndex(), new byte[] {1, 2, 3}, null,
                            new KeyGroupRange(task.subtaskIndex() * 64, task.subtaskIndex() * 64 + 63));
            onMain(() -> coordinator.acknowledgeCheckpoint(task, id, handle));
        }
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
