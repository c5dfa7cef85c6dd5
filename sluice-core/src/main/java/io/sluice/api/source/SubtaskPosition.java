package io.sluice.api.source;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * The position one subtask of a source had in a checkpoint, as a reader restored at another parallelism
 * sees it ({@link SourceReader#restoreRescaledPositions}).
 *
 * @param subtaskIndex the subtask's index in the checkpoint's run of the job
 * @param parallelism  the source's parallelism in that run
 * @param position     what its reader's {@link SourceReader#snapshotPosition} returned, or {@code null} when it
 *                     had finished (it had emitted everything it was to emit)
 */
public record SubtaskPosition(int subtaskIndex, int parallelism, byte @Nullable [] position) implements Serializable {
    public SubtaskPosition {
        ReaderPositions.checkSubtask("SubtaskPosition", subtaskIndex, parallelism);
    }

    /** Whether the subtask had finished: it has nothing left, whatever its source. */
    public boolean finished() {
        return position == null;
    }
}
