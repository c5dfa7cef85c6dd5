package io.sluice.taskexecutor;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;

/**
 * The task-local copies of one subtask's state files (task-local recovery), or none when the job
 * or the task executor has it off. Thread-safe: stored from upload threads, read on the task
 * thread while restoring, trimmed when a checkpoint completes.
 */
final class SubtaskLocalState {
    private final TaskLocalStateStore store;
    private final JobId jobId;
    private final int vertexId;
    private final int subtaskIndex;

    /** @param store the task executor's copies, or {@code null}: this subtask keeps none */
    SubtaskLocalState(TaskLocalStateStore store, JobId jobId, int vertexId, int subtaskIndex) {
        this.store = store;
        this.jobId = jobId;
        this.vertexId = vertexId;
        this.subtaskIndex = subtaskIndex;
    }

    /** Keeps a copy of the state file {@code stateFile} just written for {@code checkpointId}. */
    void store(long checkpointId, String stateFile, byte[] data) {
        if (store != null) {
            store.store(jobId, vertexId, subtaskIndex, checkpointId, stateFile, data);
        }
    }

    /**
     * The local copy of the state behind {@code handle}, or {@code null}: only a copy this very
     * subtask wrote for that checkpoint, with the same file name and size.
     */
    byte[] copyOf(long checkpointId, TaskStateHandle handle) {
        if (store == null || handle.vertexId() != vertexId || handle.subtaskIndex() != subtaskIndex) {
            return null;
        }
        return store.retrieve(jobId, vertexId, subtaskIndex, checkpointId, handle.stateFile(), handle.stateSize())
                .orElse(null);
    }

    /** Checkpoint {@code checkpointId} completed: older copies are no longer needed. */
    void confirm(long checkpointId) {
        if (store != null) {
            store.confirm(jobId, vertexId, subtaskIndex, checkpointId);
        }
    }
}
