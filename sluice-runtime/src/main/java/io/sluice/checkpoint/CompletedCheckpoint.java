package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import java.util.List;
import java.util.Map;

/**
 * A checkpoint whose metadata is durably in checkpoint storage: everything needed to restore
 * every subtask of the job. Immutable; held in memory by the {@link CompletedCheckpointStore} so
 * that task failover needs no storage read of metadata.
 *
 * @param metadataPath         storage path of the {@code _metadata} file this was written to or read from
 * @param sharedFileReferences the shared-state registry when this checkpoint completed: every shared file
 *                             (RocksDB table files of incremental checkpoints) of the checkpoints registered
 *                             then, with the ids of those that refer to it; empty without incremental state.
 *                             What a new leader rebuilds the registry from ({@link SharedStateRegistry})
 */
public record CompletedCheckpoint(JobId jobId, long checkpointId, long triggerTimestampMillis,
                                  long completionTimestampMillis, List<TaskStateHandle> taskStates,
                                  String metadataPath, Map<String, List<Long>> sharedFileReferences) {
    public CompletedCheckpoint {
        taskStates = List.copyOf(taskStates);
        sharedFileReferences = sharedFileReferences == null ? Map.of() : Map.copyOf(sharedFileReferences);
    }

    /** A checkpoint without shared files. */
    public CompletedCheckpoint(JobId jobId, long checkpointId, long triggerTimestampMillis,
                               long completionTimestampMillis, List<TaskStateHandle> taskStates, String metadataPath) {
        this(jobId, checkpointId, triggerTimestampMillis, completionTimestampMillis, taskStates, metadataPath, Map.of());
    }

    /** This checkpoint as stored at {@code path}: all other components unchanged. */
    public CompletedCheckpoint withMetadataPath(String path) {
        return new CompletedCheckpoint(jobId, checkpointId, triggerTimestampMillis, completionTimestampMillis,
                taskStates, path, sharedFileReferences);
    }

    /** This checkpoint with the registry's references ({@link #sharedFileReferences}). */
    public CompletedCheckpoint withSharedFileReferences(Map<String, List<Long>> references) {
        return new CompletedCheckpoint(jobId, checkpointId, triggerTimestampMillis, completionTimestampMillis,
                taskStates, metadataPath, references);
    }

    /** The shared files its own incremental handles refer to. */
    public List<String> sharedFiles() {
        List<String> files = new java.util.ArrayList<>();
        for (TaskStateHandle h : taskStates) {
            if (h.incremental() != null) {
                h.incremental().sharedFiles().forEach(f -> files.add(f.path()));
            }
        }
        return files;
    }

    /** The handle of one subtask, or {@code null} if it contributed nothing. */
    /** The number of subtasks vertex {@code vertexId} ran with in this checkpoint (highest index + 1), 0 if none. */
    public int parallelismOf(int vertexId) {
        int n = 0;
        for (TaskStateHandle h : taskStates) {
            if (h.vertexId() == vertexId) {
                n = Math.max(n, h.subtaskIndex() + 1);
            }
        }
        return n;
    }

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
