package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointMetricsListener;
import io.sluice.checkpoint.CheckpointPointerInDoubtException;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers checkpoints, collects task acknowledgements and completes checkpoints: the entry point
 * of a job's checkpointing, which hands each step to its piece.
 *
 * <ul>
 *   <li>{@link PeriodicTrigger}: fires every interval; whether a checkpoint starts is decided here
 *       (none while one is pending or lingers, or while not every task runs, or when no source runs and no
 *       task awaits its final checkpoint). A firing that found the tasks not all running (deploying,
 *       restoring) starts its checkpoint as soon as they run ({@link #taskRunning}); so do a job-manager
 *       failover ({@link #start}) and a task failover's restore ({@link #restoreStarting}).</li>
 *   <li>{@link CheckpointIdRequests}: the id, from the counter on the I/O executor, bounded by the
 *       timeout and never at or below a retained or started checkpoint.</li>
 *   <li>{@link PendingCheckpoints}: the checkpoint in flight: acknowledgements, declines, finished
 *       tasks, timeout, aborts.</li>
 *   <li>{@link CheckpointFinalizer}: metadata, then pointer, on the I/O executor; the outcome back on
 *       the main thread.</li>
 *   <li>{@link CheckpointFailures}: classification and tolerance of failures;
 *       {@link CheckpointStatsTracker}: the counters of {@link #stats()}.</li>
 *   <li>{@link CheckpointDiscarder}: files of aborted and subsumed checkpoints, and the pin of the
 *       checkpoint being restored from ({@link RestoreCheckpointPin}).</li>
 *   <li>Notifications: a completed checkpoint is told to exactly the tasks that took part
 *       ({@link #notifyTasksOfCompletion}, through {@link Context#notifyTaskCheckpointComplete}).</li>
 * </ul>
 *
 * <p>Threading: confined to the job master's main thread; every method checks it. The id counter,
 * the metadata write, the pointer write ({@link CompletedCheckpointStore#addCheckpoint}) and discards
 * run on the I/O executor, and their results come back to the main thread.
 *
 * <p>At most one checkpoint is pending at a time. A checkpoint completes in this order: all tasks
 * acknowledged; metadata written atomically; pointer persisted in the store; only then is it
 * counted, subsumed checkpoints discarded and tasks notified. A crash anywhere before the pointer
 * write leaves no completed checkpoint behind, only files that a later discard removes. A failed
 * pointer write discards the checkpoint's files only if the write was refused before it started;
 * once started, a failure is in doubt ({@link CheckpointPointerInDoubtException}: a revocation that
 * interrupts the writer, or a lost connection, does not undo a transaction ZooKeeper already
 * applied) and the files are kept, since the pointer may name them.
 *
 * <p>Final checkpoints: a task whose input ended and whose operators commit their last output only
 * once a checkpoint covers it (a two-phase-commit sink) stays {@code RUNNING} and awaits its final
 * checkpoint ({@link Context#tasksAwaitingFinalCheckpoint}). No barrier reaches it through its ended
 * inputs, so it is triggered directly, like a source, and a checkpoint can start while any task awaits
 * (also when every source has finished); the periodic trigger starts it, so a bounded job with such a
 * sink ends up to one checkpoint interval after its input. A pending checkpoint that awaits such a task
 * is triggered at it when it starts waiting ({@link #taskAwaitsFinalCheckpoint}). It finishes, and is
 * recorded as finished in later checkpoints, only once that checkpoint completed and it committed.
 *
 * <p>Finished tasks: a task that finished before the trigger is part of the checkpoint as
 * {@linkplain TaskStateHandle#finished finished} (it is restored as finished and emits nothing
 * again) and is neither triggered nor awaited; one that finishes while awaited without having
 * acknowledged ({@link #taskFinished}) never took its snapshot, so it is recorded as finished too.
 *
 * <p>Timeout: the whole checkpoint, from the trigger through acknowledgements, the id, the
 * metadata write and the pointer write, is bounded by {@code checkpoints.timeout}. On expiry it is
 * aborted and its files are discarded; an I/O call that returns after that is ignored (the
 * pointer is never written for an expired checkpoint). Only when the pointer write itself was
 * already under way are the files kept: the pointer may still land, and then the checkpoint is a
 * valid restore point but is not counted as completed.
 *
 * <p>Failures are classified ({@link io.sluice.checkpoint.CheckpointFailureReason}): only a task's
 * decline because its own work failed counts towards {@code tolerableCheckpointFailures}, beyond
 * which the job is failed over (the {@link Context#failJob} callback). Storage failures and
 * timeouts never fail the job: the next trigger one interval later retries, {@link #stats()} says
 * since when checkpoints fail and why, and checkpoints resume by themselves once storage answers.
 * An abort because of a job failover is not a failure.
 *
 * <p>Restores: a checkpoint that is already finalizing when the job fails over is not aborted and
 * may complete after the restart took the previous one as its restore checkpoint. The job master
 * therefore pins the restore checkpoint ({@link #restoreStarting}) until the new tasks have
 * restored ({@link #restoreFinished}); retention postpones discarding it until then.
 */
public final class CheckpointCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);

    /** What the coordinator needs from its job master. Called on the main thread. */
    public interface Context {
        /**
         * Whether a checkpoint can start: every task runs or has finished, and some source still runs or some
         * task awaits its final checkpoint (also when every source has finished).
         */
        boolean canTriggerCheckpoint();

        /** Tasks that receive the trigger (the running sources). */
        List<ExecutionAttemptId> tasksToTrigger();

        /**
         * Running tasks whose inputs ended and that await their final checkpoint before they finish: no barrier
         * reaches them through their inputs, so they receive the trigger too, as sources do.
         */
        default List<ExecutionAttemptId> tasksAwaitingFinalCheckpoint() {
            return List.of();
        }

        /** Tasks that must acknowledge (all that have not finished). */
        List<ExecutionAttemptId> tasksToAcknowledge();

        /** The state of the tasks that have finished: part of every checkpoint as finished, without acknowledging. */
        default List<TaskStateHandle> finishedTaskStates() {
            return List.of();
        }

        void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis);

        /**
         * Triggers a savepoint at {@code task} (a running source): a full snapshot at every task; with
         * {@code stop}, the source emits nothing after the barrier (stop-with-savepoint).
         */
        default void triggerTaskForSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis,
                                             boolean stop) {
            throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no savepoints");
        }

        /** Checkpoint {@code checkpointId} is durable: {@code task}, which took part, may commit what it holds. */
        void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId);

        void failJob(Throwable cause);
    }

    private final JobId jobId;
    private final MainThreadExecutor mainThread;
    private final Context context;
    private final PeriodicTrigger trigger;
    private final CheckpointFailures failures;
    private final CheckpointStatsTracker statsTracker;
    private final CheckpointDiscarder discarder;
    /** Deletes what crashed uploads left for checkpoints that did not complete. */
    private final AbandonedUploads abandonedUploads;
    private final SharedStateRegistry sharedState;
    private final CheckpointIdRequests ids;
    private final PendingCheckpoints pendings;
    private final SavepointFinalizer savepoints;
    private final Clock clock;
    private final JobConfig config;
    /** A firing (or a restore) is owed a checkpoint once every task runs; cleared when one starts or on stop. */
    private boolean firingMissed;
    /**
     * Whether the job had completed checkpoints when this coordinator was created: a new job master (after a
     * job-manager failover, or a cluster restarted on its HA data) resumes the job from the latest of them.
     */
    private final boolean resumesRetainedCheckpoints;
    /** A savepoint requested and not started yet (its id not yet asked for), or {@code null}. */
    private PendingSavepoint queuedSavepoint;
    /** Whether a look at {@link #queuedSavepoint} is scheduled. */
    private boolean savepointRetryScheduled;

    /**
     * @param writesAllowed checked on the I/O thread right before each metadata or pointer write;
     *                      false once this job master lost leadership, so nothing is written for it
     */
    public CheckpointCoordinator(JobId jobId, JobConfig config, CheckpointStorage storage,
                                 CompletedCheckpointStore store, CheckpointIdCounter idCounter,
                                 MainThreadExecutor mainThread, Executor ioExecutor, Clock clock, Context context,
                                 BooleanSupplier writesAllowed) {
        this.jobId = jobId;
        this.mainThread = mainThread;
        this.context = context;
        this.trigger = new PeriodicTrigger(config, mainThread, this::triggerCheckpoint);
        BooleanSupplier running = trigger::isRunning;
        this.failures = new CheckpointFailures(jobId, config, mainThread, clock, context::failJob);
        this.statsTracker = new CheckpointStatsTracker(config, store, mainThread, clock, failures);
        // Rebuilt from the recovered latest checkpoint's metadata alone (no other read, no listing); once per
        // job master, that is per leadership session: a task failover keeps it.
        SharedStateRegistry.Recovered shared = SharedStateRegistry.recover(jobId, store.latest().orElse(null),
                store.retainedIds());
        this.sharedState = shared.registry();
        this.resumesRetainedCheckpoints = store.latest().isPresent();
        this.discarder = new CheckpointDiscarder(jobId, storage, mainThread, ioExecutor, sharedState);
        long recoveredThrough = Math.max(store.latest().map(CompletedCheckpoint::checkpointId).orElse(0L),
                store.retainedIds().stream().mapToLong(Long::longValue).max().orElse(0L));
        this.abandonedUploads = new AbandonedUploads(jobId, storage, mainThread, ioExecutor, sharedState,
                recoveredThrough, discarder::deleteShared, id -> store.retainedIds().contains(id));
        if (!shared.orphans().isEmpty()) {
            LOG.info("Job {}: deleting {} shared state file(s) that no retained checkpoint refers to any more (a discard"
                    + " that an earlier job manager did not finish)", jobId, shared.orphans().size());
            ioExecutor.execute(() -> discarder.deleteShared(shared.orphans()));
        }
        this.ids = new CheckpointIdRequests(jobId, config, idCounter, store, mainThread, ioExecutor, clock, running,
                failures);
        CheckpointFinalizer finalizer = new CheckpointFinalizer(jobId, config, storage, store, mainThread, ioExecutor,
                clock, writesAllowed, running, discarder, failures, this::onCompleted, sharedState);
        this.clock = clock;
        this.config = config;
        SavepointFinalizer[] savepointFinalizer = new SavepointFinalizer[1];
        this.pendings = new PendingCheckpoints(jobId, config, mainThread, clock, running, discarder, failures,
                p -> {
                    if (p.savepoint != null) {
                        savepointFinalizer[0].finalizeSavepoint(p);
                    } else {
                        finalizer.finalizeCheckpoint(p);
                    }
                });
        finalizer.setPendingCheckpoints(pendings);
        this.savepoints = new SavepointFinalizer(jobId, storage, mainThread, ioExecutor, clock, writesAllowed,
                discarder, pendings);
        savepointFinalizer[0] = savepoints;
    }

    /** Sets who is told of each completed and failed checkpoint (metrics). Main thread. */
    public void setMetricsListener(CheckpointMetricsListener listener) {
        failures.setMetricsListener(listener); // a new job master's coordinator starts afresh
    }

    /**
     * Starts periodic triggering (no-op when checkpointing is disabled or it runs already). A coordinator that
     * resumes retained checkpoints (a new job master: the job was recovered from the latest of them) starts its
     * first checkpoint as soon as every task runs ({@link #taskRunning}), as if a firing had been missed while the
     * tasks restored, rather than one interval after the start: that checkpoint is already older than the
     * failover took, and a second failure before the next one would replay all of it again. A new job's first
     * checkpoint waits for the first firing.
     */
    public void start() {
        boolean wasRunning = trigger.isRunning();
        trigger.start();
        if (!wasRunning && trigger.isRunning() && resumesRetainedCheckpoints) {
            firingMissed = true;
        }
    }

    /**
     * A task of the job reported that it runs (after a deployment or a failover: restored). When a periodic
     * firing found the tasks not all running (they were being deployed or were restoring) and every task runs
     * now, that firing's checkpoint starts now rather than one interval later, so the first checkpoint after a
     * recovery follows the restore at once. Nothing otherwise. Main thread.
     */
    public void taskRunning() {
        mainThread.assertRunningInMainThread();
        if (firingMissed && context.canTriggerCheckpoint()) {
            triggerCheckpoint();
        }
    }

    /** Stops triggering and aborts the pending checkpoint (not counted as a failure). */
    public void stop(String reason) {
        firingMissed = false;
        trigger.stop();
        pendings.abort(reason, null);
        if (queuedSavepoint != null) {
            queuedSavepoint.fail("job " + jobId, reason);
            queuedSavepoint = null;
        }
    }

    /**
     * Starts a checkpoint now if none is pending and the tasks allow it; otherwise does nothing.
     * The id is taken on the I/O executor; the trigger messages go out on the main thread.
     */
    public void triggerCheckpoint() {
        mainThread.assertRunningInMainThread();
        if (queuedSavepoint != null) {
            startQueuedSavepoint(); // a requested savepoint goes first
            return;
        }
        if (!trigger.isRunning() || pendings.busy() || ids.inFlight()) {
            return;
        }
        if (!context.canTriggerCheckpoint()) {
            firingMissed = true; // taken by taskRunning() once every task runs
            return;
        }
        firingMissed = false;
        ids.request((counterId, requestedNanos) -> startCheckpoint(counterId, requestedNanos, null));
    }

    /**
     * Takes a savepoint into a new directory under {@code targetLocation} (see
     * {@link io.sluice.checkpoint.SavepointWriter}): a checkpoint whose tasks write full snapshots in the
     * canonical format, started as soon as no checkpoint is in flight and every task runs. The returned future
     * completes on the main thread with the savepoint once its metadata is written, or fails with a
     * {@link io.sluice.checkpoint.CheckpointException} saying why (checkpointing is off or stopped, another
     * savepoint is being taken, a task declined, the timeout, storage); nothing else of the job changes then.
     * Main thread.
     */
    public java.util.concurrent.CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(
            String targetLocation) {
        return triggerSavepoint(targetLocation, false);
    }

    /**
     * Like {@link #triggerSavepoint(String)}; with {@code stop} (stop-with-savepoint) the sources emit nothing
     * after the savepoint's barrier, so nothing the savepoint does not hold reaches a sink; the caller cancels
     * the job once the savepoint completed. If it fails, the next checkpoint's trigger resumes the sources.
     * Main thread.
     */
    public java.util.concurrent.CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(
            String targetLocation, boolean stop) {
        mainThread.assertRunningInMainThread();
        PendingSavepoint s = new PendingSavepoint(targetLocation, clock.nanoTime(), stop);
        if (!trigger.isRunning()) {
            s.fail("job " + jobId, config.checkpointingEnabled()
                    ? "the job is not running (checkpoints are taken only while it runs)"
                    : "checkpointing is disabled for this job; a savepoint is a checkpoint, so set checkpoints.interval");
        } else if (queuedSavepoint != null || (pendings.pending() != null && pendings.pending().savepoint != null)) {
            s.fail("job " + jobId, "another savepoint of this job is being taken; wait for it and try again");
        } else {
            queuedSavepoint = s;
            startQueuedSavepoint();
        }
        return s.future;
    }

    /** Starts the queued savepoint if it can start now, else looks again shortly (within the timeout). */
    private void startQueuedSavepoint() {
        PendingSavepoint s = queuedSavepoint;
        if (s == null || (s.idRequested && ids.inFlight())) {
            return; // nothing queued, or its id is on its way
        }
        if (!trigger.isRunning()) {
            queuedSavepoint = null;
            s.fail("job " + jobId, "checkpointing stopped");
            return;
        }
        s.idRequested = false;
        if (pendings.busy() || ids.inFlight() || !context.canTriggerCheckpoint()) {
            if (clock.nanoTime() - s.requestedNanos > config.checkpointTimeout().toNanos()) {
                queuedSavepoint = null;
                s.fail("job " + jobId, "it could not start within the checkpoint timeout of "
                        + io.sluice.config.Durations.describe(config.checkpointTimeout()) + " ("
                        + (pendings.busy() ? "a checkpoint was in flight" : "not every task was running") + ")");
            } else if (!savepointRetryScheduled) {
                savepointRetryScheduled = true;
                mainThread.schedule(() -> {
                    savepointRetryScheduled = false;
                    startQueuedSavepoint();
                }, SAVEPOINT_START_RETRY);
            }
            return;
        }
        s.idRequested = true;
        ids.request((counterId, requestedNanos) -> startCheckpoint(counterId, requestedNanos, s));
    }

    /** How soon a savepoint that had to wait (a checkpoint in flight, tasks deploying) looks again. */
    private static final java.time.Duration SAVEPOINT_START_RETRY = java.time.Duration.ofMillis(20);

    /**
     * The counter answered {@code counterId}: the checkpoint (or {@code savepoint}, if not {@code null}) starts,
     * if nothing changed meanwhile; a savepoint that cannot start stays queued.
     */
    private void startCheckpoint(long counterId, long requestedNanos, PendingSavepoint savepoint) {
        if (savepoint != null && savepoint != queuedSavepoint) {
            return; // failed meanwhile (stopped)
        }
        if (pendings.pending() != null || !context.canTriggerCheckpoint()) {
            if (savepoint != null) {
                startQueuedSavepoint();
            }
            return;
        }
        long id = ids.take(counterId);
        abandonedUploads.triggered(id);
        if (savepoint != null) {
            queuedSavepoint = null;
        }
        PendingCheckpoint p = pendings.start(id, requestedNanos, context.tasksToAcknowledge(),
                context.finishedTaskStates(), savepoint);
        LOG.debug("Triggering {} {} of job {}", savepoint != null ? "savepoint" : "checkpoint", id, jobId);
        java.util.Set<ExecutionAttemptId> triggered = new java.util.LinkedHashSet<>(context.tasksToTrigger());
        triggered.addAll(context.tasksAwaitingFinalCheckpoint()); // a source that awaits it is triggered once
        for (ExecutionAttemptId task : triggered) {
            trigger(task, p);
        }
        pendings.finalizeIfAcknowledged(p); // every task awaited finished meanwhile: nothing to wait for
    }

    private void trigger(ExecutionAttemptId task, PendingCheckpoint p) {
        if (p.savepoint != null) {
            context.triggerTaskForSavepoint(task, p.checkpointId, p.triggerTimestampMillis, p.savepoint.stop);
        } else {
            context.triggerTask(task, p.checkpointId, p.triggerTimestampMillis);
        }
    }

    /**
     * {@code task}'s input ended and it awaits its final checkpoint: the next checkpoint triggers it directly.
     * If the pending checkpoint awaits it without its acknowledgement, no barrier of that checkpoint can reach
     * it any more (its inputs ended without one: every task before it finished before that checkpoint, and is
     * part of it as finished), so it is triggered for it now, rather than holding the checkpoint until its
     * timeout. A task that took that checkpoint already ignores the trigger. Main thread.
     */
    public void taskAwaitsFinalCheckpoint(ExecutionAttemptId task) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pendings.pending();
        if (p != null && !p.finalizing() && p.isAwaiting(task)) {
            LOG.debug("Triggering {} {} of job {} at {}, which awaits its final checkpoint",
                    p.savepoint != null ? "savepoint" : "checkpoint", p.checkpointId, jobId, task);
            trigger(task, p);
        }
    }

    /** A task has written its state for {@code checkpointId}. */
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle handle) {
        pendings.acknowledge(task, checkpointId, handle);
    }

    /**
     * {@code task} finished. If the pending checkpoint still awaits it, it finished without taking
     * its snapshot (a task acknowledges before it reports FINISHED): everything it emitted reached
     * its consumers before they took theirs, so it is part of the checkpoint as {@code finishedState}.
     */
    public void taskFinished(ExecutionAttemptId task, TaskStateHandle finishedState) {
        pendings.taskFinished(task, finishedState);
    }

    /** A task could not take part in {@code checkpointId}. */
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        pendings.decline(task, checkpointId, reason);
    }

    /** The job is failing over: abort the pending checkpoint without counting it as failed. */
    public void abortPendingOnFailover() {
        pendings.abort("the job is failing over", null);
    }

    /**
     * A deployment is about to restore from {@code checkpointId}: its files are kept, even if a newer checkpoint
     * subsumes it, until {@link #restoreFinished()} or the next call (earlier postponed discards run now). While
     * checkpointing runs (a task failover), the next checkpoint starts once every task runs, as in {@link #start}.
     */
    public void restoreStarting(long checkpointId) {
        mainThread.assertRunningInMainThread();
        discarder.restoreStarting(checkpointId);
        if (trigger.isRunning()) {
            firingMissed = true;
        }
    }

    /**
     * The deployment no longer reads its restore checkpoint (every task restored or ended), or it
     * restores nothing: a postponed discard of that checkpoint runs now. Idempotent. Main thread.
     */
    public void restoreFinished() {
        discarder.restoreFinished();
    }

    /** The pointer of {@code p} landed in time: count it, discard what it subsumed, tell its tasks. */
    private void onCompleted(PendingCheckpoint p, CompletedCheckpoint checkpoint, List<Long> subsumed) {
        failures.succeeded();
        long durationMillis = statsTracker.completed(p, checkpoint, failures.metricsListener());
        LOG.info("Completed checkpoint {} of job {} ({} task states, {} ms)", p.checkpointId, jobId,
                checkpoint.taskStates().size(), durationMillis);
        discarder.discardSubsumed(subsumed);
        abandonedUploads.completed(p.checkpointId);
        notifyTasksOfCompletion(p);
    }

    /** Only the tasks that took part: after a failover the current tasks may be others. */
    private void notifyTasksOfCompletion(PendingCheckpoint p) {
        for (ExecutionAttemptId task : p.tasks) {
            context.notifyTaskCheckpointComplete(task, p.checkpointId);
        }
    }

    /**
     * The counters for status. Checkpoints count as failing from their first failure after the last
     * completion, or while the pending checkpoint (or its id request) has been in flight for more
     * than ten intervals (at least 10 s), as on hung storage before the timeout. Main thread.
     */
    public CheckpointStats stats() {
        return statsTracker.snapshot(pendings.pending(), ids.inFlightSinceNanos(), discarder.restoredCheckpointId());
    }

    /** Subsumed checkpoints whose discard waits for a restore to finish, ascending (for tests). Main thread. */
    public List<Long> postponedDiscards() {
        return discarder.postponed();
    }

    /** Whether a checkpoint is pending (for tests). Main thread. */
    public boolean hasPendingCheckpoint() {
        return pendings.pending() != null;
    }

    /** The shared-state registry of incremental checkpoints (for tests and metrics). Main thread. */
    public SharedStateRegistry sharedStateRegistry() {
        mainThread.assertRunningInMainThread();
        return sharedState;
    }
}
