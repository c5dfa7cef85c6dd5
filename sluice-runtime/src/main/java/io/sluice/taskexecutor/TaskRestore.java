package io.sluice.taskexecutor;

import io.sluice.checkpoint.TaskStateHandle;
import java.util.List;

/**
 * What a subtask restores from: the checkpoint's source position for it (if a source) and the
 * handles of the state files that hold key groups it owns (one file when the parallelism is
 * unchanged; several after a rescale).
 */
public record TaskRestore(long checkpointId, byte[] sourcePosition, List<TaskStateHandle> keyedStateHandles) {
    public TaskRestore {
        keyedStateHandles = List.copyOf(keyedStateHandles);
    }
}
