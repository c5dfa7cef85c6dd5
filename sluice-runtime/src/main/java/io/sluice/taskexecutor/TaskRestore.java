package io.sluice.taskexecutor;

import io.sluice.checkpoint.TaskStateHandle;
import java.util.List;

/**
 * What a subtask restores from: the checkpoint's source position for it (if a source) and the
 * handles of the keyed state that holds key groups it owns (one when the parallelism is unchanged;
 * several after a rescale). A handle's state is in a state file or, when small, inline.
 */
public record TaskRestore(long checkpointId, byte[] sourcePosition, List<TaskStateHandle> keyedStateHandles) {
    public TaskRestore {
        keyedStateHandles = List.copyOf(keyedStateHandles);
    }
}
