package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobConfig;
import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checkpoint in flight and what happens to it before it is finalized: the tasks'
 * acknowledgements, declines, tasks that finish while awaited, the timeout and aborts. At most one
 * checkpoint is pending; besides it, at most one lingers whose pointer write outlived its timeout
 * (the store takes one write at a time, so no new checkpoint starts while it lingers). Once every
 * task acknowledged, the checkpoint goes to {@code finalizer}; from then on only the timeout and
 * the finalizer's outcome ({@link #finalized}) touch it.
 *
 * <p>An aborted or timed-out checkpoint's files are discarded, except when the timeout came while
 * its pointer was being written: the pointer may still land, and then it names those files.
 *
 * <p>Threading: the job master's main thread only; every method checks it, and the timeout fires
 * there.
 */
final class PendingCheckpoints {
    private static final Logger LOG = LoggerFactory.getLogger(PendingCheckpoints.class);

    private final JobId jobId;
    private final JobConfig config;
    private final MainThreadExecutor mainThread;
    private final Clock clock;
    private final BooleanSupplier running;
    private final CheckpointDiscarder discarder;
    private final CheckpointFailures failures;
    private final Consumer<PendingCheckpoint> finalizer;

    private PendingCheckpoint pending;
    /** A checkpoint that expired while its pointer was being written; the store takes one write at a time. */
    private PendingCheckpoint lingeringCommit;

    /**
     * @param running   whether checkpointing still runs: a timeout after it stopped is not a failure
     * @param finalizer told of a checkpoint every task acknowledged (on the main thread)
     */
    PendingCheckpoints(JobId jobId, JobConfig config, MainThreadExecutor mainThread, Clock clock,
                       BooleanSupplier running, CheckpointDiscarder discarder, CheckpointFailures failures,
                       Consumer<PendingCheckpoint> finalizer) {
        this.jobId = jobId;
        this.config = config;
        this.mainThread = mainThread;
        this.clock = clock;
        this.running = running;
        this.discarder = discarder;
        this.failures = failures;
        this.finalizer = finalizer;
    }

    /** Whether a checkpoint is pending or lingers: no other may start. */
    boolean busy() {
        mainThread.assertRunningInMainThread();
        return pending != null || lingeringCommit != null;
    }

    /** The pending checkpoint, or {@code null}. */
    PendingCheckpoint pending() {
        mainThread.assertRunningInMainThread();
        return pending;
    }

    /**
     * Starts checkpoint {@code checkpointId}, awaiting {@code tasks}, with {@code finishedTasks} part of
     * it already; its timeout counts from {@code requestedNanos} (the id request). The caller triggers
     * the tasks, then {@link #finalizeIfAcknowledged}.
     */
    PendingCheckpoint start(long checkpointId, long requestedNanos, List<ExecutionAttemptId> tasks,
                            List<TaskStateHandle> finishedTasks) {
        return start(checkpointId, requestedNanos, tasks, finishedTasks, null);
    }

    /** {@link #start} of a checkpoint that is {@code savepoint} ({@code null}: a periodic one). */
    PendingCheckpoint start(long checkpointId, long requestedNanos, List<ExecutionAttemptId> tasks,
                            List<TaskStateHandle> finishedTasks, PendingSavepoint savepoint) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = new PendingCheckpoint(checkpointId, clock.currentTimeMillis(), clock.nanoTime(), tasks,
                finishedTasks, savepoint);
        pending = p;
        Duration remaining = config.checkpointTimeout().minusNanos(clock.nanoTime() - requestedNanos);
        p.timeout = mainThread.schedule(() -> onTimeout(p), remaining.isNegative() ? Duration.ZERO : remaining);
        return p;
    }

    /** Hands {@code p} to the finalizer if nothing is awaited (every awaited task finished meanwhile). */
    void finalizeIfAcknowledged(PendingCheckpoint p) {
        mainThread.assertRunningInMainThread();
        if (pending == p && p.isFullyAcknowledged()) {
            finalizer.accept(p);
        }
    }

    /** A task has written its state for {@code checkpointId}. */
    void acknowledge(ExecutionAttemptId task, long checkpointId, TaskStateHandle handle) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p == null || p.checkpointId != checkpointId || p.finalizing()) {
            LOG.debug("Ignoring acknowledgement of checkpoint {} from {}: not pending", checkpointId, task);
            discarder.discardLateUpload(checkpointId, handle);
            return;
        }
        if (p.acknowledge(task, handle) && p.isFullyAcknowledged()) {
            finalizer.accept(p);
        }
    }

    /** {@code task} finished; if still awaited, it is part of the pending checkpoint as {@code finishedState}. */
    void taskFinished(ExecutionAttemptId task, TaskStateHandle finishedState) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p != null && !p.finalizing() && p.acknowledge(task, finishedState) && p.isFullyAcknowledged()) {
            finalizer.accept(p);
        }
    }

    /** {@code task} could not take part in {@code checkpointId}: the checkpoint is aborted, a classified failure. */
    void decline(ExecutionAttemptId task, long checkpointId, Throwable reason) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p != null && p.checkpointId == checkpointId && !p.finalizing() && p.isAwaiting(task)) {
            abort("task " + task + " declined it: " + Causes.rootMessage(reason),
                    CheckpointFailureReason.ofDecline(reason));
        }
    }

    /**
     * Aborts the pending checkpoint and discards its files, unless it is already finalizing.
     *
     * @param reason the failure it counts as, or {@code null}: not a failure (stop, failover)
     */
    void abort(String message, CheckpointFailureReason reason) {
        mainThread.assertRunningInMainThread();
        PendingCheckpoint p = pending;
        if (p == null || p.finalizing()) {
            return;
        }
        pending = null;
        p.cancelTimeout();
        p.expire();
        discarder.rememberAborted(p.checkpointId);
        discarder.discardAsync(p.checkpointId, p.handles());
        if (p.savepoint != null) {
            p.savepoint.fail("job " + jobId, message);
        }
        if (reason != null) {
            failures.failed(p.checkpointId, reason, message);
        } else {
            LOG.info("Aborted checkpoint {} of job {}: {}", p.checkpointId, jobId, message);
        }
    }

    /** The finalizer is done with {@code p} (completed or not): it is neither pending nor lingering any more. */
    void finalized(PendingCheckpoint p) {
        mainThread.assertRunningInMainThread();
        p.cancelTimeout();
        if (pending == p) {
            pending = null;
        }
        if (lingeringCommit == p) {
            lingeringCommit = null;
        }
    }

    private void onTimeout(PendingCheckpoint p) {
        p.timeout = null;
        if (pending != p || !running.getAsBoolean()) {
            return;
        }
        String waiting = p.waitingFor();
        boolean finalizing = p.finalizing();
        PendingCheckpoint.Phase expiredIn = p.expire();
        pending = null;
        discarder.rememberAborted(p.checkpointId);
        if (expiredIn == PendingCheckpoint.Phase.EXPIRED_WHILE_COMMITTING) {
            // The pointer write is under way and may still land: keep the files it would point to.
            lingeringCommit = p;
        } else {
            discarder.discardAsync(p.checkpointId, p.handles());
            if (p.savepoint != null) { // while committing, the writer's outcome decides
                p.savepoint.fail("job " + jobId, "it did not complete within the timeout of "
                        + io.sluice.config.Durations.describe(config.checkpointTimeout()) + " (" + waiting + ")");
            }
        }
        failures.failed(p.checkpointId,
                finalizing ? CheckpointFailureReason.FINALIZATION_TIMED_OUT : CheckpointFailureReason.TIMED_OUT,
                "it did not complete within the timeout of " + config.checkpointTimeout() + " (" + waiting + ")");
    }
}
