package io.sluice.checkpoint;

import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.taskexecutor.ExecutionAttemptId;
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
 * write leaves no completed checkpoint behind, only files that a later discard removes.
 *
 * <p>Failures: a timeout or a task's decline aborts the pending checkpoint, deletes its files and
 * counts towards {@code tolerableCheckpointFailures}; beyond it the job is failed over (the
 * {@link Context#failJob} callback). An abort because of a job failover is not counted.
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
        /** Whether all tasks run, so a checkpoint can start. */
        boolean canTriggerCheckpoint();

        /** Tasks that receive the trigger (sources). */
        List<ExecutionAttemptId> tasksToTrigger();

        /** Tasks that must acknowledge (all). */
        List<ExecutionAttemptId> tasksToAcknowledge();

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
    private boolean triggerInFlight;
    private PendingCheckpoint pending;
    private MainThreadExecutor.ScheduledTask nextTrigger;
    private long completed;
    private long failed;
    private int consecutiveFailures;
    private long latestDurationMillis;
    /** The latest completed checkpoints, oldest first, at most {@link CheckpointStats#RECENT_LIMIT}. */
    private final java.util.ArrayDeque<CompletedCheckpointStats> recent = new java.util.ArrayDeque<>();
    private String lastFailure;
    /** Wall-clock time of the first of the current consecutive failures, -1 when the latest checkpoint did not fail. */
    private long failingSinceMillis = -1;
    /** The checkpoint the current deployment restores from, -1 for none. */
    private long restoredCheckpointId = -1;
    /** Recently aborted checkpoint ids, oldest first, so late uploads into them can be cleaned up. */
    private final java.util.LinkedHashSet<Long> aborted = new java.util.LinkedHashSet<>();
    /** The checkpoint the current deployment restores from, which retention must not discard yet. */
    private final RestoreCheckpointPin restorePin = new RestoreCheckpointPin();
    /** Told of each completion and failure, where the counters of {@link #stats()} change. */
    private CheckpointMetricsListener metricsListener = CheckpointMetricsListener.NONE;

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
        abortPending(reason, false);
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
     * Starts a checkpoint now if none is pending and all tasks run; otherwise does nothing.
     * The id is taken on the I/O executor; the trigger messages go out on the main thread.
     */
    public void triggerCheckpoint() {
        mainThread.assertRunningInMainThread();
        if (!running || pending != null || triggerInFlight || !context.canTriggerCheckpoint()) {
            return;
        }
        triggerInFlight = true;
        CompletableFuture.supplyAsync(() -> {
            try {
                return idCounter.getAndIncrement();
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((id, error) -> {
            triggerInFlight = false;
            if (!running) {
                return;
            }
            if (error != null) {
                onCheckpointFailure(-1, "could not obtain a checkpoint id: " + rootMessage(error), true);
                return;
            }
            if (pending != null || !context.canTriggerCheckpoint()) {
                return;
            }
            long now = clock.currentTimeMillis();
            PendingCheckpoint p = new PendingCheckpoint(id, now, clock.nanoTime(), context.tasksToAcknowledge());
            pending = p;
            p.timeout = mainThread.schedule(() -> {
                if (pending == p && !p.finalizing) {
                    abortPending("it did not complete within the timeout of " + config.checkpointTimeout()
                            + " (" + p.pendingAcks() + " task(s) had not acknowledged)", true);
                }
            }, config.checkpointTimeout());
            LOG.debug("Triggering checkpoint {} of job {}", id, jobId);
            for (ExecutionAttemptId task : context.tasksToTrigger()) {
                context.triggerTask(task, id, now);
            }
        }, mainThread);
    }

    /** A task has written its state for {@code checkpointId}. */
    public void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle handle) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p == null || p.checkpointId != checkpointId || p.finalizing) {
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

    /** A task could not take part in {@code checkpointId}. */
    public void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p != null && p.checkpointId == checkpointId && !p.finalizing && p.isAwaiting(task)) {
            abortPending("task " + task + " declined it: " + rootMessage(reason), true);
        }
    }

    /** The job is failing over: abort the pending checkpoint without counting it as failed. */
    public void abortPendingOnFailover() {
        mainThread.assertRunningInMainThread();
        abortPending("the job is failing over", false);
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
        p.finalizing = true;
        p.cancelTimeout();
        CompletedCheckpoint checkpoint = new CompletedCheckpoint(jobId, p.checkpointId, p.triggerTimestampMillis,
                clock.currentTimeMillis(), p.handles(), null);
        CompletableFuture.supplyAsync(() -> {
            try {
                if (!writesAllowed.getAsBoolean()) {
                    throw new CheckpointException("this job master is no longer the leader");
                }
                String path = storage.writeMetadata(checkpoint);
                CompletedCheckpoint stored = new CompletedCheckpoint(jobId, checkpoint.checkpointId(),
                        checkpoint.triggerTimestampMillis(), checkpoint.completionTimestampMillis(),
                        checkpoint.taskStates(), path);
                if (!writesAllowed.getAsBoolean()) {
                    throw new CheckpointException("this job master is no longer the leader");
                }
                return store.addCheckpoint(stored);
            } catch (Exception e) {
                throw new CompletionException(e);
            }
        }, ioExecutor).whenCompleteAsync((subsumed, error) -> {
            if (pending == p) {
                pending = null;
            }
            if (error != null) {
                discardAsync(p.checkpointId);
                if (running) {
                    onCheckpointFailure(p.checkpointId, "could not be completed: " + rootMessage(error), true);
                }
                return;
            }
            completed++;
            consecutiveFailures = 0;
            failingSinceMillis = -1;
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
            for (Long id : subsumed) {
                if (restorePin.mayDiscardNow(id)) {
                    discardAsync(id);
                } else {
                    LOG.info("Checkpoint {} of job {} is subsumed, but the current deployment is still restoring"
                            + " from it: its files are discarded once its tasks have restored", id, jobId);
                }
            }
            // Only the tasks that took part: after a failover the current tasks may be others.
            for (ExecutionAttemptId task : p.tasks) {
                context.notifyTaskCheckpointComplete(task, p.checkpointId);
            }
        }, mainThread);
    }

    private void abortPending(String reason, boolean countAsFailure) {
        PendingCheckpoint p = pending;
        if (p == null || p.finalizing) {
            return;
        }
        pending = null;
        p.cancelTimeout();
        aborted.add(p.checkpointId);
        if (aborted.size() > 16) {
            aborted.remove(aborted.iterator().next());
        }
        discardAsync(p.checkpointId);
        if (countAsFailure) {
            onCheckpointFailure(p.checkpointId, reason, true);
        } else {
            LOG.info("Aborted checkpoint {} of job {}: {}", p.checkpointId, jobId, reason);
        }
    }

    private void onCheckpointFailure(long checkpointId, String reason, boolean counts) {
        failed++;
        if (consecutiveFailures == 0) {
            failingSinceMillis = clock.currentTimeMillis();
        }
        consecutiveFailures++;
        metricsListener.checkpointFailed();
        lastFailure = "Checkpoint " + (checkpointId >= 0 ? checkpointId + " " : "") + "failed: " + reason;
        LOG.warn("{} (job {}, {} consecutive failure(s), {} tolerated)", lastFailure, jobId, consecutiveFailures,
                config.tolerableCheckpointFailures());
        if (counts && consecutiveFailures > config.tolerableCheckpointFailures()) {
            consecutiveFailures = 0;
            failingSinceMillis = -1;
            context.failJob(new CheckpointException("Exceeded the tolerable number of consecutive checkpoint failures ("
                    + config.tolerableCheckpointFailures() + "). Last: " + lastFailure));
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

    public CheckpointStats stats() {
        long latestId = store.latest().map(CompletedCheckpoint::checkpointId).orElse(-1L);
        long latestAt = store.latest().map(CompletedCheckpoint::completionTimestampMillis).orElse(0L);
        return new CheckpointStats(completed, failed, consecutiveFailures, latestId, latestAt, latestDurationMillis, lastFailure,
                List.copyOf(recent), restoredCheckpointId, failingSinceMillis);
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
        Throwable c = t;
        while ((c instanceof CompletionException || c instanceof java.util.concurrent.ExecutionException) && c.getCause() != null) {
            c = c.getCause();
        }
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }
}
