package io.sluice.checkpoint;

import io.sluice.rpc.MainThreadExecutor;
import io.sluice.taskexecutor.ExecutionAttemptId;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A triggered checkpoint waiting for every task to acknowledge. Main-thread confined (owned by the
 * {@link CheckpointCoordinator}).
 */
final class PendingCheckpoint {
    final long checkpointId;
    final long triggerTimestampMillis;
    final long triggerNanos;
    /** Every task that takes part (all must acknowledge); told of the completion, and no other. */
    final List<ExecutionAttemptId> tasks;
    private final Set<ExecutionAttemptId> notYetAcknowledged;
    private final List<TaskStateHandle> handles = new ArrayList<>();
    MainThreadExecutor.ScheduledTask timeout;
    boolean finalizing;

    PendingCheckpoint(long checkpointId, long triggerTimestampMillis, long triggerNanos, List<ExecutionAttemptId> tasks) {
        this.checkpointId = checkpointId;
        this.triggerTimestampMillis = triggerTimestampMillis;
        this.triggerNanos = triggerNanos;
        this.tasks = List.copyOf(tasks);
        this.notYetAcknowledged = new HashSet<>(tasks);
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

    void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel();
            timeout = null;
        }
    }
}
