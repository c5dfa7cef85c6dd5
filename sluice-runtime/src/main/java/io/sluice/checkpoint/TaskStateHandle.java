package io.sluice.checkpoint;

import io.sluice.state.KeyGroupRange;
import java.util.Arrays;
import java.util.Objects;

/**
 * What one subtask contributed to a checkpoint: where its keyed state was written, and its
 * source position (small, so kept inline in the metadata).
 *
 * @param vertexId       the job vertex
 * @param subtaskIndex   the subtask
 * @param stateFile      storage path of the subtask's state file, or {@code null} if it has no keyed state
 * @param stateSize      bytes in {@code stateFile}, 0 if none
 * @param sourcePosition the source reader's position, or {@code null} if the task has no source
 * @param keyGroupRange  the key groups in {@code stateFile}, or {@code null} if none
 */
public record TaskStateHandle(int vertexId, int subtaskIndex, String stateFile, long stateSize,
                              byte[] sourcePosition, KeyGroupRange keyGroupRange) {

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskStateHandle h && vertexId == h.vertexId && subtaskIndex == h.subtaskIndex
                && stateSize == h.stateSize && Objects.equals(stateFile, h.stateFile)
                && Arrays.equals(sourcePosition, h.sourcePosition) && Objects.equals(keyGroupRange, h.keyGroupRange);
    }

    @Override
    public int hashCode() {
        return Objects.hash(vertexId, subtaskIndex, stateFile, stateSize, Arrays.hashCode(sourcePosition), keyGroupRange);
    }

    @Override
    public String toString() {
        return "TaskStateHandle{vertex=" + vertexId + ", subtask=" + subtaskIndex + ", file=" + stateFile
                + ", bytes=" + stateSize + ", keyGroups=" + keyGroupRange
                + ", sourcePosition=" + (sourcePosition == null ? "none" : sourcePosition.length + " bytes") + "}";
    }
}
