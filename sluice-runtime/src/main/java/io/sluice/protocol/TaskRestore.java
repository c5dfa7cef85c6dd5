package io.sluice.protocol;

import io.sluice.checkpoint.TaskStateHandle;
import java.util.List;

/**
 * What a subtask restores from: the checkpoint's source position for it (if a source) and the
 * handles of the keyed state that holds key groups it owns (one when the parallelism is unchanged;
 * several after a rescale). A handle's state is in a state file or, when small, inline.
 *
 * @param finished              the subtask had finished when the checkpoint was taken: it is restored as
 *                              finished, that is, it emits nothing and ends its outputs at once
 * @param operatorStateHandles  the handles whose operators' own state (such as a two-phase-commit sink's
 *                              committables) this subtask restores: its own first, then those of subtasks
 *                              of a higher parallelism that no longer exist ({@code s % parallelism})
 * @param rescaledSourceStates  for a source that ran at another parallelism in the checkpoint: every subtask's
 *                              handle of it (each with its position, or finished), from which the reader takes
 *                              its share ({@code SourceReader.restoreRescaledPositions}); empty otherwise, and
 *                              then {@code sourcePosition} is this subtask's own
 * @param checkpointJobId       the id of the job that wrote the checkpoint (another job's after
 *                              {@code checkpoints.restore-from}), or {@code null} where unknown
 */
public record TaskRestore(long checkpointId, byte[] sourcePosition, List<TaskStateHandle> keyedStateHandles,
                          boolean finished, List<TaskStateHandle> operatorStateHandles,
                          List<TaskStateHandle> rescaledSourceStates, String checkpointJobId)
        implements java.io.Serializable {
    /** A restore at the parallelism of the checkpoint. */
    public TaskRestore(long checkpointId, byte[] sourcePosition, List<TaskStateHandle> keyedStateHandles,
                       boolean finished, List<TaskStateHandle> operatorStateHandles) {
        this(checkpointId, sourcePosition, keyedStateHandles, finished, operatorStateHandles, List.of(), null);
    }

    /** The restore of a subtask that had not finished. */
    public TaskRestore(long checkpointId, byte[] sourcePosition, List<TaskStateHandle> keyedStateHandles) {
        this(checkpointId, sourcePosition, keyedStateHandles, false);
    }

    /** A restore without operator state. */
    public TaskRestore(long checkpointId, byte[] sourcePosition, List<TaskStateHandle> keyedStateHandles,
                       boolean finished) {
        this(checkpointId, sourcePosition, keyedStateHandles, finished, List.of());
    }

    public TaskRestore {
        keyedStateHandles = List.copyOf(keyedStateHandles);
        operatorStateHandles = operatorStateHandles == null ? List.of() : List.copyOf(operatorStateHandles);
        rescaledSourceStates = rescaledSourceStates == null ? List.of() : List.copyOf(rescaledSourceStates);
    }
}
