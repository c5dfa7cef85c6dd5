package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointMetricsListener;
import io.sluice.checkpoint.CheckpointPointerInDoubtException;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CheckpointStoreShutDownException;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStats;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Triggers checkpoints, collects task acknowledgements and completes checkpoints.
 *
 * <p>Threading: confined to the job master's main thread; every method must be called there.
 * The id counter, the metadata write, the pointer write ({@link CompletedCheckpointStore#addCheckpoint})
 * and discards run on the I/O executor, and their results come back to the main thread.
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
 * <p>Failures are classified ({@link CheckpointFailureReason}): only a task's decline because its
 * own work failed counts towards {@code tolerableCheckpointFailures}, beyond which the job is failed
 * over (the {@link Context#failJob} callback). Storage failures and timeouts never fail the job:
 * the next trigger one interval later retries, {@link #stats()} says since when checkpoints fail
 * and why, and checkpoints resume by themselves once storage answers. An abort because of a job
 * failover is not a failure.
 *
 * <p>Restores: a checkpoint that is already finalizing when the job fails over is not aborted and
 * may complete after the restart took the previous one as its restore checkpoint. The job master
 * therefore pins the restore checkpoint ({@link #restoreStarting}) until the new tasks have
 * restored ({@link #restoreFinished}); retention postpones discarding it until then.
 */
public final class CheckpointCoordinator {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointCoordinator.class);
    /** A pending checkpoint older than this many intervals (and at least {@link #MIN_STUCK}) shows as failing. */
    private static final int STUCK_INTERVALS = 10;
    private static final Duration MIN_STUCK = Duration.ofSeconds(10);
    /** While checkpoints keep failing, every this-many-th failure is logged at WARN (the others at DEBUG). */
    private static final int WARN_EVERY = 10;

    /** What the coordinator needs from its job master. Called on the main thread. */
    public interface Context {
        /** Whether a checkpoint can start: every task runs or has finished, and some source still runs. */
        boolean canTriggerCheckpoint();

        /** Tasks that receive the trigger (the running sources). */
        List<ExecutionAttemptId> tasksToTrigger();

        /** Tasks that must acknowledge (all that have not finished). */
        List<ExecutionAttemptId> tasksToAcknowledge();

        /** The state of the tasks that have finished: part of every checkpoint as finished, without acknowledging. */
        default List<TaskStateHandle> finishedTaskStates() {
            return List.of();
        }

        void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis);

        void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId);

        void failJob(Throwable cause);
    }

    private final JobId jobId;
    private final JobConfig config;
    private final CheckpointStorage storage;
    private final CompletedCheckpointStore store;
    private final CheckpointIdCounter idCounter;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final Clock clock;
    private final Context context;
    private final BooleanSupplier writesAllowed;

    private boolean running;
    /** The id request in flight, or {@code null}; its timeout is part of the checkpoint's timeout. */
    private TriggerAttempt triggerInFlight;
    private PendingCheckpoint pending;
    /** A checkpoint that expired while its pointer was being written; the store takes one write at a time. */
    private PendingCheckpoint lingeringCommit;
    private MainThreadExecutor.ScheduledTask nextTrigger;
    private long completed;
    private long failed;
    private int consecutiveFailures;
    /** Consecutive failures that count towards the tolerance (caused by the tasks); reset by a completion. */
    private int consecutiveTaskFailures;
    /** Wall-clock time of the first failure since the last completion; -1 while checkpoints succeed. */
    private long failingSinceMillis = -1;
    private long latestDurationMillis;
    /** The latest completed checkpoints, oldest first, at most {@link CheckpointStats#RECENT_LIMIT}. */
    private final java.util.ArrayDeque<CompletedCheckpointStats> recent = new java.util.ArrayDeque<>();
    private String lastFailure;
    /** The highest checkpoint id this coordinator started; -1 before the first. */
    private long highestIdStarted = -1;
    /** The checkpoint the current deployment restores from, -1 for none. */
    private long restoredCheckpointId = -1;
    /** Recently aborted checkpoint ids, oldest first, so late uploads into them can be cleaned up. */
    private final java.util.LinkedHashSet<Long> aborted = new java.util.LinkedHashSet<>();
    /** The checkpoint the current deployment restores from, which retention must not discard yet. */
    private final RestoreCheckpointPin restorePin = new RestoreCheckpointPin();
    /** Told of each completion and failure, where the counters of {@link #stats()} change. */
    private CheckpointMetricsListener metricsListener = CheckpointMetricsListener.NONE;

    /** An id request on the I/O executor; expired by the checkpoint timeout if the counter does not answer. */
    private static final class TriggerAttempt {
        final long startedNanos;
        boolean expired;
        MainThreadExecutor.ScheduledTask timeout;

        TriggerAttempt(long startedNanos) {
            this.startedNanos = startedNanos;
        }
    }

    /**
     * @param writesAllowed checked on the I/O thread right before each metadata or pointer write;
     *                      false once this job master lost leadership, so nothing is written for it
     */
    public CheckpointCoordinator(JobId jobId, JobConfig config, CheckpointStorage storage,
                                 CompletedCheckpointStore store, CheckpointIdCounter idCounter,
                                 MainThreadExecutor mainThread, Executor ioExecutor, Clock clock, Context context,
                                 BooleanSupplier writesAllowed) {
        this.jobId = jobId;
        this.config = config;
        this.storage = storage;
        this.store = store;
        this.idCounter = idCounter;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.clock = clock;
        this.context = context;
        this.writesAllowed = writesAllowed;
    }

    /** Sets who is told of each completed and failed checkpoint (metrics). Main thread. */
    public void setMetricsListener(CheckpointMetricsListener listener) {
        mainThread.assertRunningInMainThread();
        this.metricsListener = java.util.Objects.requireNonNull(listener, "listener");
        listener.failingSinceChanged(failingSinceMillis); // a new job master's coordinator starts afresh
    }

    /** Starts periodic triggering (no-op when checkpointing is disabled). */
    public void start() {
        mainThread.assertRunningInMainThread();
        if (!config.checkpointingEnabled() || running) {
            return;
        }
        running = true;
        scheduleNext(config.checkpointInterval());
    }

    /** Stops triggering and aborts the pending checkpoint (not counted as a failure). */
    public void stop(String reason) {
        mainThread.assertRunningInMainThread();
        running = false;
        if (nextTrigger != null) {
            nextTrigger.cancel();
            nextTrigger = null;
        }
        abortPending(reason, null);
    }

    private void scheduleNext(Duration delay) {
        nextTrigger = mainThread.schedule(() -> {
            nextTrigger = null;
            if (!running) {
                return;
            }
            triggerCheckpoint();
            scheduleNext(config.checkpointInterval());
        }, delay);
    }

    /**
     * Starts a checkpoint now if none is pending and the tasks allow it; otherwise does nothing.
     * The id is taken on the I/O executor; the trigger messages go out on the main thread.
     */
    public void triggerCheckpoint() {
        mainThread.assertRunningInMainThread();
        if (!running || pending != null || triggerInFlight != null || lingeringCommit != null
                || !context.canTriggerCheckpoint()) {
            return;
        }
        TriggerAttempt attempt = new TriggerAttempt(clock.nanoTime());
        triggerInFlight = attempt;
        attempt.timeout = mainThread.schedule(() -> {
            if (triggerInFlight == attempt && running) {
                // The request stays in flight (the counter takes one at a time); its late answer is dropped.
                attempt.expired = true;
                onCheckpointFailure(-1, CheckpointFailureReason.TIMED_OUT, "no checkpoint id within the timeout of "
                        + config.checkpointTimeout() + ": the checkpoint id counter (HA services) does not answer");
            }
        }, config.checkpointTimeout());
        CompletableFuture.supplyAsync(() -> {
            try {
                return idCounter.getAndIncrement();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((id, error) -> {
            if (triggerInFlight == attempt) {
                triggerInFlight = null;
            }
            if (attempt.timeout != null) {
                attempt.timeout.cancel();
            }
            if (!running || attempt.expired) {
                return;
            }
            if (error != null) {
                onCheckpointFailure(-1, CheckpointFailureReason.STORAGE,
                        "could not obtain a checkpoint id: " + rootMessage(error));
                return;
            }
            if (pending != null || !context.canTriggerCheckpoint()) {
                return;
            }
            startPending(guardedId(id), attempt.startedNanos);
        }, mainThread);
    }

    /**
     * The id to use for a checkpoint the counter gave {@code counterId}: never at or below a retained
     * checkpoint, nor one this coordinator already started. A lost or reset counter (its znode or
     * file deleted, restored from a backup) would otherwise hand out ids the store refuses for ever,
     * or collide with the files of a retained checkpoint.
     */
    private long guardedId(long counterId) {
        List<Long> retained = store.retainedIds();
        long floor = Math.max(retained.isEmpty() ? 0 : retained.get(retained.size() - 1) + 1, highestIdStarted + 1);
        if (counterId < floor) {
            LOG.warn("The checkpoint id counter of job {} returned {}, at or below a retained or already used"
                    + " checkpoint (retained {}); taking {} instead (was the counter lost or reset?)", jobId, counterId,
                    retained, floor);
            return floor;
        }
        return counterId;
    }

    private void startPending(long id, long startedNanos) {
        highestIdStarted = Math.max(highestIdStarted, id);
        long now = clock.currentTimeMillis();
        PendingCheckpoint p = new PendingCheckpoint(id, now, clock.nanoTime(), context.tasksToAcknowledge(),
                context.finishedTaskStates());
        pending = p;
        // The id request counts against the timeout too.
        Duration remaining = config.checkpointTimeout().minusNanos(clock.nanoTime() - startedNanos);
        p.timeout = mainThread.schedule(() -> onTimeout(p), remaining.isNegative() ? Duration.ZERO : remaining);
        LOG.debug("Triggering checkpoint {} of job {}", id, jobId);
        for (ExecutionAttemptId task : context.tasksToTrigger()) {
            context.triggerTask(task, id, now);
        }
        if (p.isFullyAcknowledged()) {
            completePending(p); // every task awaited finished meanwhile: nothing to wait for
        }
    }

    private void onTimeout(PendingCheckpoint p) {
        p.timeout = null;
        if (pending != p || !running) {
            return;
        }
        String waiting = p.waitingFor();
        boolean finalizing = p.finalizing();
        PendingCheckpoint.Phase expiredIn = p.expire();
        pending = null;
        rememberAborted(p.checkpointId);
        if (expiredIn == PendingCheckpoint.Phase.EXPIRED_WHILE_COMMITTING) {
            // The pointer write is under way and may still land: keep the files it would point to.
            lingeringCommit = p;
        } else {
            discardAsync(p.checkpointId);
        }
        onCheckpointFailure(p.checkpointId,
                finalizing ? CheckpointFailureReason.FINALIZATION_TIMED_OUT : CheckpointFailureReason.TIMED_OUT,
                "it did not complete within the timeout of " + config.checkpointTimeout() + " (" + waiting + ")");
    }

    /** A task has written its state for {@code checkpointId}. */
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle handle) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p == null || p.checkpointId != checkpointId || p.finalizing()) {
            LOG.debug("Ignoring acknowledgement of checkpoint {} from {}: not pending", checkpointId, task);
            if (aborted.contains(checkpointId) && handle != null && handle.stateFile() != null) {
                discardAsync(checkpointId); // a late upload into an aborted checkpoint: remove it again
            }
            return;
        }
        if (!p.acknowledge(task, handle)) {
            return;
        }
        if (p.isFullyAcknowledged()) {
            completePending(p);
        }
    }

    /**
     * {@code task} finished. If the pending checkpoint still awaits it, it finished without taking
     * its snapshot (a task acknowledges before it reports FINISHED): everything it emitted reached
     * its consumers before they took theirs, so it is part of the checkpoint as {@code finishedState}.
     */
    public void taskFinished(ExecutionAttemptId task, TaskStateHandle finishedState) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p != null && !p.finalizing() && p.acknowledge(task, finishedState) && p.isFullyAcknowledged()) {
            completePending(p);
        }
    }

    /** A task could not take part in {@code checkpointId}. */
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p != null && p.checkpointId == checkpointId && !p.finalizing() && p.isAwaiting(task)) {
            abortPending("task " + task + " declined it: " + rootMessage(reason), CheckpointFailureReason.ofDecline(reason));
        }
    }

    /** The job is failing over: abort the pending checkpoint without counting it as failed. */
    public void abortPendingOnFailover() {
        mainThread.assertRunningInMainThread();
        abortPending("the job is failing over", null);
    }

    /**
     * A deployment is about to restore from {@code checkpointId}: its files are kept, even if a
     * newer checkpoint subsumes it, until {@link #restoreFinished()} or the next call of this
     * method. Discards postponed for an earlier restore run now. Main thread.
     */
    public void restoreStarting(long checkpointId) {
        mainThread.assertRunningInMainThread();
        restoredCheckpointId = checkpointId;
        restorePin.pin(checkpointId).forEach(this::discardAsync);
    }

    /**
     * The deployment no longer reads its restore checkpoint (every task restored or ended), or it
     * restores nothing: a postponed discard of that checkpoint runs now. Idempotent. Main thread.
     */
    public void restoreFinished() {
        mainThread.assertRunningInMainThread();
        restorePin.release().forEach(this::discardAsync);
    }

    private void completePending(PendingCheckpoint p) {
        p.startFinalizing(); // the timeout keeps running: finalization is bounded too
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(jobId, p.checkpointId, p.triggerTimestampMillis,
                clock.currentTimeMillis(), p.handles(), null);
        CompletableFuture.supplyAsync(() -> {
            try {
                requireWritesAllowed();
                if (p.expired()) {
                    throw new CheckpointException("it expired before its metadata was written");
                }
                String path = storage.writeMetadata(checkpoint);
                CompletedCheckpoint stored = checkpoint.withMetadataPath(path);
                requireWritesAllowed();
                if (!p.tryStartCommit()) {
                    throw new CheckpointException("it expired while its metadata was written; no pointer was written");
                }
                try {
                    return store.addCheckpoint(stored);
                } catch (CheckpointStoreShutDownException shutDown) {
                    // The job ended meanwhile and its store was cleaned up: remove the files here, on
                    // this thread, since the job master's main thread may not run anything any more.
                    LOG.info("{}", shutDown.getMessage());
                    try {
                        storage.discard(jobId, p.checkpointId);
                    } catch (RuntimeException e) {
                        LOG.warn("Could not discard checkpoint {} of job {} from {}; its files stay behind: {}",
                                p.checkpointId, jobId, storage.location(), e.toString());
                    }
                    throw shutDown;
                }
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((subsumed, error) -> {
            boolean expired = p.expired();
            p.cancelTimeout();
            if (pending == p) {
                pending = null;
            }
            if (lingeringCommit == p) {
                lingeringCommit = null;
            }
            if (error != null) {
                Throwable cause = unwrap(error);
                if (cause instanceof CheckpointStoreShutDownException) {
                    return; // the job ended; the files are already discarded
                }
                boolean inDoubt = cause instanceof CheckpointPointerInDoubtException;
                if (!inDoubt) {
                    discardAsync(p.checkpointId); // no pointer was written: its files (and a late _metadata) go
                }
                if (!running || expired) {
                    // Not reported as a failure (this job master stopped, or the timeout already counted it).
                    if (inDoubt) {
                        LOG.warn("{} (job {}; this job master no longer checkpoints)", cause.getMessage(), jobId);
                    } else {
                        LOG.info("Checkpoint {} of job {} was not completed ({}); its files are discarded",
                                p.checkpointId, jobId, rootMessage(error));
                    }
                } else {
                    // In doubt, the message says that the pointer may have landed and the files are kept.
                    onCheckpointFailure(p.checkpointId, leadershipLost(cause)
                                    ? CheckpointFailureReason.LEADERSHIP_LOST : CheckpointFailureReason.ofFinalization(cause),
                            "could not be completed: " + rootMessage(error));
                }
                return;
            }
            if (expired) {
                // The pointer landed after the timeout: the checkpoint is durable and a valid restore point,
                // but it does not count as completed and its tasks are not notified.
                LOG.warn("Checkpoint {} of job {} was persisted only after its timeout of {}; it is kept as a restore"
                        + " point but not counted as completed", p.checkpointId, jobId, config.checkpointTimeout());
                discardSubsumed(subsumed);
                return;
            }
            onCompleted(p, checkpoint, subsumed);
        }, mainThread);
    }

    private void requireWritesAllowed() throws NotLeaderException {
        if (!writesAllowed.getAsBoolean()) {
            throw new NotLeaderException();
        }
    }

    /** Whether {@code cause} (or what it wraps) says that this job master's leadership is gone. */
    private static boolean leadershipLost(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof NotLeaderException || c instanceof io.sluice.ha.LeadershipLostException) {
                return true;
            }
        }
        return false;
    }

    /** Leadership was lost: nothing is written for this job master any more. */
    private static final class NotLeaderException extends CheckpointException {
        NotLeaderException() {
            super("this job master is no longer the leader");
        }
    }

    private void onCompleted(PendingCheckpoint p, CompletedCheckpoint checkpoint, List<Long> subsumed) {
        completed++;
        if (failingSinceMillis >= 0) {
            LOG.info("Checkpoints of job {} succeed again after failing for {} ms ({} failure(s) in a row)", jobId,
                    clock.currentTimeMillis() - failingSinceMillis, consecutiveFailures);
        }
        consecutiveFailures = 0;
        consecutiveTaskFailures = 0;
        if (failingSinceMillis >= 0) {
            failingSinceMillis = -1;
            metricsListener.failingSinceChanged(-1);
        }
        long durationNanos = clock.nanoTime() - p.triggerNanos;
        latestDurationMillis = durationNanos / 1_000_000L;
        boolean inline = checkpoint.taskStates().stream().allMatch(h -> h.stateFile() == null);
        recent.addLast(new CompletedCheckpointStats(p.checkpointId, p.triggerTimestampMillis, durationNanos,
                checkpoint.totalStateSize(), inline));
        metricsListener.checkpointCompleted(recent.peekLast());
        if (recent.size() > CheckpointStats.RECENT_LIMIT) {
            recent.removeFirst();
        }
        LOG.info("Completed checkpoint {} of job {} ({} task states, {} ms)", p.checkpointId, jobId,
                checkpoint.taskStates().size(), latestDurationMillis);
        discardSubsumed(subsumed);
        // Only the tasks that took part: after a failover the current tasks may be others.
        for (ExecutionAttemptId task : p.tasks) {
            context.notifyTaskCheckpointComplete(task, p.checkpointId);
        }
    }

    private void discardSubsumed(List<Long> subsumed) {
        for (Long id : subsumed) {
            if (restorePin.mayDiscardNow(id)) {
                discardAsync(id);
            } else {
                LOG.info("Checkpoint {} of job {} is subsumed, but the current deployment is still restoring"
                        + " from it: its files are discarded once its tasks have restored", id, jobId);
            }
        }
    }

    /** Aborts the pending checkpoint unless it is finalizing; {@code reason} null: not a failure. */
    private void abortPending(String message, CheckpointFailureReason reason) {
        PendingCheckpoint p = pending;
        if (p == null || p.finalizing()) {
            return;
        }
        pending = null;
        p.cancelTimeout();
        p.expire();
        rememberAborted(p.checkpointId);
        discardAsync(p.checkpointId);
        if (reason != null) {
            onCheckpointFailure(p.checkpointId, reason, message);
        } else {
            LOG.info("Aborted checkpoint {} of job {}: {}", p.checkpointId, jobId, message);
        }
    }

    private void rememberAborted(long checkpointId) {
        aborted.add(checkpointId);
        if (aborted.size() > 16) {
            aborted.remove(aborted.iterator().next());
        }
    }

    private void onCheckpointFailure(long checkpointId, CheckpointFailureReason reason, String message) {
        failed++;
        consecutiveFailures++;
        metricsListener.checkpointFailed();
        if (failingSinceMillis < 0) {
            failingSinceMillis = clock.currentTimeMillis();
            metricsListener.failingSinceChanged(failingSinceMillis);
        }
        lastFailure = "Checkpoint " + (checkpointId >= 0 ? checkpointId + " " : "") + "failed (" + reason.label() + "): "
                + message;
        boolean counts = reason.countsTowardsTolerance();
        if (counts) {
            consecutiveTaskFailures++;
        }
        String consequence = counts
                ? consecutiveTaskFailures + " task-caused failure(s) in a row, " + config.tolerableCheckpointFailures()
                        + " tolerated before the job fails over"
                : "not counted towards the tolerance: the job keeps running and the next checkpoint is tried in "
                        + config.checkpointInterval().toMillis() + " ms";
        if (consecutiveFailures == 1 || consecutiveFailures % WARN_EVERY == 0 || counts) {
            LOG.warn("{} (job {}; {}; failing since {}, {} failure(s) in a row)", lastFailure, jobId, consequence,
                    java.time.Instant.ofEpochMilli(failingSinceMillis), consecutiveFailures);
        } else {
            LOG.debug("{} (job {}; {})", lastFailure, jobId, consequence);
        }
        if (counts && consecutiveTaskFailures > config.tolerableCheckpointFailures()) {
            consecutiveTaskFailures = 0;
            context.failJob(new CheckpointException("Exceeded the tolerable number of consecutive checkpoint failures ("
                    + config.tolerableCheckpointFailures() + ") caused by the tasks. Last: " + lastFailure));
        }
    }

    private void discardAsync(long checkpointId) {
        ioExecutor.execute(() -> {
            try {
                storage.discard(jobId, checkpointId);
            } catch (RuntimeException e) {
                LOG.warn("Could not discard checkpoint {} of job {} from {}; its files stay behind: {}",
                        checkpointId, jobId, storage.location(), e.toString());
            }
        });
    }

    /**
     * The counters for status. Checkpoints count as failing from their first failure after the last
     * completion, or while the pending checkpoint has been pending for more than
     * {@value #STUCK_INTERVALS} intervals (at least 10 s), as on hung storage before the timeout.
     */
    public CheckpointStats stats() {
        long latestId = store.latest().map(CompletedCheckpoint::checkpointId).orElse(-1L);
        long latestAt = store.latest().map(CompletedCheckpoint::completionTimestampMillis).orElse(0L);
        long since = failingSinceMillis;
        String cause = since >= 0 ? lastFailure : null;
        PendingCheckpoint p = pending;
        TriggerAttempt attempt = triggerInFlight;
        long stuckMillis = Math.max(MIN_STUCK.toMillis(), config.checkpointInterval().toMillis() * STUCK_INTERVALS);
        if (since < 0 && p != null) {
            long ageMillis = (clock.nanoTime() - p.triggerNanos) / 1_000_000L;
            if (ageMillis > stuckMillis) {
                since = p.triggerTimestampMillis;
                cause = "Checkpoint " + p.checkpointId + " has been pending for " + ageMillis + " ms (" + p.waitingFor()
                        + "); it is aborted after " + config.checkpointTimeout();
            }
        } else if (since < 0 && attempt != null) {
            long ageMillis = (clock.nanoTime() - attempt.startedNanos) / 1_000_000L;
            if (ageMillis > stuckMillis) {
                since = clock.currentTimeMillis() - ageMillis;
                cause = "The checkpoint id counter (HA services) has not answered for " + ageMillis
                        + " ms; the checkpoint is aborted after " + config.checkpointTimeout();
            }
        }
        return new CheckpointStats(completed, failed, consecutiveFailures, latestId, latestAt, latestDurationMillis,
                lastFailure, List.copyOf(recent), since, cause, restoredCheckpointId);
    }

    /** Subsumed checkpoints whose discard waits for a restore to finish, ascending (for tests). */
    public List<Long> postponedDiscards() {
        mainThread.assertRunningInMainThread();
        return restorePin.postponed();
    }

    /** Whether a checkpoint is pending (for tests). */
    public boolean hasPendingCheckpoint() {
        return pending != null;
    }

    static String rootMessage(Throwable t) {
        Throwable c = unwrap(t);
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }

    private static Throwable unwrap(Throwable t) {
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof java.util.concurrent.ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c;
    }
}
