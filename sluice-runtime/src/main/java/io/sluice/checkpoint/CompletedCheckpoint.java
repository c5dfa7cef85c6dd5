package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import java.util.List;

/**
 * A checkpoint whose metadata is durably in checkpoint storage: everything needed to restore
 * every subtask of the job. Immutable; held in memory by the {@link CompletedCheckpointStore} so
 * that task failover needs no storage read of metadata.
 *
 * @param metadataPath storage path of the {@code _metadata} file this was written to or read from
 */
public record CompletedCheckpoint(JobId jobId, long checkpointId, long triggerTimestampMillis,
                                  long completionTimestampMillis, List<TaskStateHandle> taskStates,
                                  String metadataPath) {
    public CompletedCheckpoint {
        taskStates = List.copyOf(taskStates);
    }

    /** This checkpoint as stored at {@code path}: all other components unchanged. */
    public CompletedCheckpoint withMetadataPath(String path) {
        return new CompletedCheckpoint(jobId, checkpointId, triggerTimestampMillis, completionTimestampMillis,
                taskStates, path);
    }

    /** The handle of one subtask, or {@code null} if it contributed nothing. */
    public TaskStateHandle stateOf(int vertexId, int subtaskIndex) {
        for (TaskStateHandle h : taskStates) {
            if (h.vertexId() == vertexId && h.subtaskIndex() == subtaskIndex) {
                return h;
            }
        }
        return null;
    }

    public long totalStateSize() {
        long s = 0;
        for (TaskStateHandle h : taskStates) {
            s += Math.max(0, h.stateSize()); // a finished subtask's handle holds no state
        }
        return s;
    }
}
