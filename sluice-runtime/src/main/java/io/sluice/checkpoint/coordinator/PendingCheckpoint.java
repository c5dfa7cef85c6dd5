package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.rpc.MainThreadExecutor;
import io.sluice.job.ExecutionAttemptId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A triggered checkpoint waiting for every task to acknowledge, then being finalized. Owned by the
 * {@link CheckpointCoordinator}: everything is main-thread confined except {@link #phase}, which the
 * I/O thread that finalizes the checkpoint and the main thread's timeout race for (compare-and-set),
 * so that a checkpoint that timed out is never committed, and one being committed is never discarded.
 */
final class PendingCheckpoint {
    /** Where a checkpoint is; moves only forwards. */
    enum Phase {
        /** Waiting for acknowledgements (main thread only). */
        ACKNOWLEDGING,
        /** Every task acknowledged; the metadata is being written on the I/O executor. */
        FINALIZING,
        /** The I/O executor is persisting the pointer: from here the timeout can no longer stop it. */
        COMMITTING,
        /** The timeout took it while {@link #ACKNOWLEDGING} or {@link #FINALIZING}: it is never committed. */
        EXPIRED,
        /** The timeout came while {@link #COMMITTING}: the pointer may still land; the files are kept. */
        EXPIRED_WHILE_COMMITTING
    }

    final long checkpointId;
    final long triggerTimestampMillis;
    final long triggerNanos;
    /** Every task that takes part (all must acknowledge); told of the completion, and no other. */
    final List<ExecutionAttemptId> tasks;
    private final Set<ExecutionAttemptId> notYetAcknowledged;
    private final List<TaskStateHandle> handles = new ArrayList<>();
    private final AtomicReference<Phase> phase = new AtomicReference<>(Phase.ACKNOWLEDGING);
    MainThreadExecutor.ScheduledTask timeout;
    /** The savepoint this checkpoint is, or {@code null} for a periodic checkpoint. */
    final PendingSavepoint savepoint;

    /**
     * @param tasks         the tasks that must acknowledge (those that had not finished at the trigger)
     * @param finishedTasks handles of the tasks that had already finished at the trigger: part of the checkpoint
     *                      without acknowledging
     */
    PendingCheckpoint(long checkpointId, long triggerTimestampMillis, long triggerNanos, List<ExecutionAttemptId> tasks,
                      List<TaskStateHandle> finishedTasks) {
        this(checkpointId, triggerTimestampMillis, triggerNanos, tasks, finishedTasks, null);
    }

    /** @param savepoint the savepoint this checkpoint is, or {@code null} */
    PendingCheckpoint(long checkpointId, long triggerTimestampMillis, long triggerNanos, List<ExecutionAttemptId> tasks,
                      List<TaskStateHandle> finishedTasks, PendingSavepoint savepoint) {
        this.savepoint = savepoint;
        this.checkpointId = checkpointId;
        this.triggerTimestampMillis = triggerTimestampMillis;
        this.triggerNanos = triggerNanos;
        this.tasks = List.copyOf(tasks);
        this.notYetAcknowledged = new HashSet<>(tasks);
        this.handles.addAll(finishedTasks);
    }

    /** Records an acknowledgement; false if the task is not (or no longer) awaited. */
    boolean acknowledge(ExecutionAttemptId task, TaskStateHandle handle) {
        if (!notYetAcknowledged.remove(task)) {
            return false;
        }
        if (handle != null) {
            handles.add(handle);
        }
        return true;
    }

    boolean isAwaiting(ExecutionAttemptId task) {
        return notYetAcknowledged.contains(task);
    }

    boolean isFullyAcknowledged() {
        return notYetAcknowledged.isEmpty();
    }

    int pendingAcks() {
        return notYetAcknowledged.size();
    }

    List<TaskStateHandle> handles() {
        return List.copyOf(handles);
    }

    Phase phase() {
        return phase.get();
    }

    /** Whether every task acknowledged and the checkpoint is being (or was) finalized. */
    boolean finalizing() {
        return phase.get() != Phase.ACKNOWLEDGING && phase.get() != Phase.EXPIRED;
    }

    /** Main thread: all acknowledged, finalization starts. */
    void startFinalizing() {
        if (!phase.compareAndSet(Phase.ACKNOWLEDGING, Phase.FINALIZING)) {
            throw new IllegalStateException("Checkpoint " + checkpointId + " cannot be finalized in phase " + phase.get());
        }
    }

    /** I/O thread, right before the pointer write: false if the checkpoint expired meanwhile (do not commit it). */
    boolean tryStartCommit() {
        return phase.compareAndSet(Phase.FINALIZING, Phase.COMMITTING);
    }

    /** Whether the timeout expired this checkpoint (in any phase). */
    boolean expired() {
        Phase p = phase.get();
        return p == Phase.EXPIRED || p == Phase.EXPIRED_WHILE_COMMITTING;
    }

    /**
     * Main thread, on timeout: expires the checkpoint. Returns the phase it expired in:
     * {@link Phase#EXPIRED} if it will never be committed (its files may go), or
     * {@link Phase#EXPIRED_WHILE_COMMITTING} if its pointer write is under way and may still land.
     */
    Phase expire() {
        while (true) {
            Phase p = phase.get();
            switch (p) {
                case ACKNOWLEDGING, FINALIZING -> {
                    if (phase.compareAndSet(p, Phase.EXPIRED)) {
                        return Phase.EXPIRED;
                    }
                }
                case COMMITTING -> {
                    if (phase.compareAndSet(p, Phase.EXPIRED_WHILE_COMMITTING)) {
                        return Phase.EXPIRED_WHILE_COMMITTING;
                    }
                }
                default -> {
                    return p;
                }
            }
        }
    }

    /** What it is waiting for, for status messages. */
    String waitingFor() {
        return switch (phase.get()) {
            case ACKNOWLEDGING -> pendingAcks() + " task(s) had not acknowledged";
            case FINALIZING -> "all tasks acknowledged; writing the metadata to checkpoint storage";
            case COMMITTING, EXPIRED_WHILE_COMMITTING -> "all tasks acknowledged; persisting the checkpoint pointer";
            case EXPIRED -> "expired";
        };
    }

    void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel();
            timeout = null;
        }
    }
}
