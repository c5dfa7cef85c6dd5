package io.sluice.checkpoint;

import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import java.util.Arrays;
import java.util.Objects;

/**
 * What one subtask contributed to a checkpoint: its keyed state — in a state file of its own, or,
 * when small, inline in the metadata — and its source position (small, so always inline).
 *
 * <p>A keyed-state snapshot is in exactly one place: {@code stateFile} or {@code inlineState}
 * (see {@code checkpoints.inline-state-threshold}). Inline state travels with the metadata, which
 * the job manager holds in memory, so restoring it reads nothing from checkpoint storage.
 *
 * <p>Immutable by convention: the byte arrays are shared, not copied, and must not be modified.
 * Thread-safe to read from any thread.
 *
 * @param vertexId       the job vertex
 * @param subtaskIndex   the subtask
 * @param stateFile      storage path of the subtask's state file, or {@code null} if its keyed state is
 *                       inline or it has none
 * @param stateSize      bytes of keyed state (in {@code stateFile} or {@code inlineState}), 0 if none;
 *                       {@link #FINISHED} for a subtask that had finished (see {@link #finished})
 * @param sourcePosition the source reader's position, or {@code null} if the task has no source
 * @param keyGroupRange  the key groups of the keyed state, or {@code null} if none
 * @param inlineState    the serialized keyed-state snapshot itself, or {@code null} if it is in
 *                       {@code stateFile} or there is none
 * @param operatorState  the operators' own state (what {@code StreamOperator.snapshotState} returned, such as
 *                       a two-phase-commit sink's committables), inline, or {@code null} if none or in a file
 * @param operatorStateFile storage path of the operators' own state when too large to be inline, or {@code null}
 * @param incremental    the keyed state as RocksDB's files of an incremental checkpoint, or {@code null}
 */
public record TaskStateHandle(int vertexId, int subtaskIndex, String stateFile, long stateSize,
                              byte[] sourcePosition, KeyGroupRange keyGroupRange, byte[] inlineState,
                              byte[] operatorState, String operatorStateFile,
                              IncrementalStateHandle incremental) implements java.io.Serializable {

    /** A handle without operator state, whose keyed state, if any, is in a state file or inline. */
    public TaskStateHandle(int vertexId, int subtaskIndex, String stateFile, long stateSize, byte[] sourcePosition,
                           KeyGroupRange keyGroupRange, byte[] inlineState) {
        this(vertexId, subtaskIndex, stateFile, stateSize, sourcePosition, keyGroupRange, inlineState, null, null);
    }

    /** A handle whose keyed state, if any, is in a state file or inline. */
    public TaskStateHandle(int vertexId, int subtaskIndex, String stateFile, long stateSize, byte[] sourcePosition,
                           KeyGroupRange keyGroupRange, byte[] inlineState, byte[] operatorState,
                           String operatorStateFile) {
        this(vertexId, subtaskIndex, stateFile, stateSize, sourcePosition, keyGroupRange, inlineState, operatorState,
                operatorStateFile, null);
    }

    /**
     * A handle whose keyed state is RocksDB's files ({@code state}: an incremental checkpoint, whose
     * table files later checkpoints share); its size is that of all the files it refers to.
     */
    public static TaskStateHandle incremental(int vertexId, int subtaskIndex, IncrementalStateHandle state,
                                              byte[] sourcePosition) {
        Objects.requireNonNull(state, "state");
        return new TaskStateHandle(vertexId, subtaskIndex, null, state.totalSize(), sourcePosition,
                state.keyGroupRange(), null, null, null, state);
    }

    /** The {@code stateSize} of a {@linkplain #finished finished} subtask's handle. */
    public static final long FINISHED = -1;

    /**
     * The handle of a subtask that had finished when the checkpoint was taken: it has emitted
     * everything, and its consumers had received all of it before taking their own snapshots, so
     * it is restored as finished and emits nothing again. Stored in the metadata like any other
     * handle (no file, no position, no state, size {@link #FINISHED}), so no format change is needed.
     */
    public static TaskStateHandle finished(int vertexId, int subtaskIndex) {
        return new TaskStateHandle(vertexId, subtaskIndex, null, FINISHED, null, null, null);
    }

    /** A handle whose keyed state, if any, is in {@code stateFile}. */
    public TaskStateHandle(int vertexId, int subtaskIndex, String stateFile, long stateSize, byte[] sourcePosition,
                           KeyGroupRange keyGroupRange) {
        this(vertexId, subtaskIndex, stateFile, stateSize, sourcePosition, keyGroupRange, null);
    }

    public TaskStateHandle {
        if (incremental != null && (stateFile != null || inlineState != null)) {
            throw new IllegalArgumentException("The state handle of vertex " + vertexId + ", subtask " + subtaskIndex
                    + " names RocksDB files and also a state file or inline state; a snapshot is stored in exactly one"
                    + " place");
        }
        if (stateFile != null && inlineState != null) {
            throw new IllegalArgumentException("The state handle of vertex " + vertexId + ", subtask " + subtaskIndex
                    + " names both a state file (" + stateFile + ") and inline state; a snapshot is stored in"
                    + " exactly one place");
        }
        if (operatorState != null && operatorStateFile != null) {
            throw new IllegalArgumentException("The state handle of vertex " + vertexId + ", subtask " + subtaskIndex
                    + " names both an operator state file (" + operatorStateFile + ") and inline operator state");
        }
        if (inlineState != null && stateSize != inlineState.length) {
            throw new IllegalArgumentException("The state handle of vertex " + vertexId + ", subtask " + subtaskIndex
                    + " claims " + stateSize + " bytes of state but carries " + inlineState.length + " inline");
        }
    }

    /** A handle whose keyed-state snapshot {@code state} is carried inline, in the checkpoint metadata. */
    public static TaskStateHandle inline(int vertexId, int subtaskIndex, byte[] state, byte[] sourcePosition,
                                         KeyGroupRange keyGroupRange) {
        Objects.requireNonNull(state, "state");
        return new TaskStateHandle(vertexId, subtaskIndex, null, state.length, sourcePosition, keyGroupRange, state);
    }

    /** Whether the subtask had finished: it is restored as finished (see {@link #finished}). */
    public boolean isFinished() {
        return stateSize == FINISHED && stateFile == null && inlineState == null && sourcePosition == null
                && incremental == null;
    }

    /** This handle with the operators' own state: {@code inline} bytes, or the path of the file holding them. */
    public TaskStateHandle withOperatorState(byte[] inline, String file) {
        return new TaskStateHandle(vertexId, subtaskIndex, stateFile, stateSize, sourcePosition, keyGroupRange,
                inlineState, inline, file, incremental);
    }

    /** Whether the subtask's operators contributed state of their own (inline or in a file). */
    public boolean hasOperatorState() {
        return operatorState != null || operatorStateFile != null;
    }

    /** Whether this subtask contributed keyed state (in a file, inline, or as RocksDB's files). */
    public boolean hasKeyedState() {
        return stateFile != null || inlineState != null || incremental != null;
    }

    /** Whether the keyed state is RocksDB's files of an incremental checkpoint ({@link #incremental()}). */
    public boolean isIncremental() {
        return incremental != null;
    }

    /** Whether the keyed state is carried inline, so restoring it needs no storage read. */
    public boolean isInline() {
        return inlineState != null;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TaskStateHandle h && vertexId == h.vertexId && subtaskIndex == h.subtaskIndex
                && stateSize == h.stateSize && Objects.equals(stateFile, h.stateFile)
                && Arrays.equals(sourcePosition, h.sourcePosition) && Objects.equals(keyGroupRange, h.keyGroupRange)
                && Arrays.equals(inlineState, h.inlineState) && Arrays.equals(operatorState, h.operatorState)
                && Objects.equals(operatorStateFile, h.operatorStateFile) && Objects.equals(incremental, h.incremental);
    }

    @Override
    public int hashCode() {
        return Objects.hash(vertexId, subtaskIndex, stateFile, stateSize, Arrays.hashCode(sourcePosition), keyGroupRange,
                Arrays.hashCode(inlineState), Arrays.hashCode(operatorState), operatorStateFile, incremental);
    }

    @Override
    public String toString() {
        if (isFinished()) {
            return "TaskStateHandle{vertex=" + vertexId + ", subtask=" + subtaskIndex + ", finished}";
        }
        return "TaskStateHandle{vertex=" + vertexId + ", subtask=" + subtaskIndex
                + ", " + (incremental != null ? incremental : inlineState != null ? "inline" : "file=" + stateFile)
                + ", bytes=" + stateSize + ", keyGroups=" + keyGroupRange
                + ", sourcePosition=" + (sourcePosition == null ? "none" : sourcePosition.length + " bytes")
                + (operatorState != null ? ", operatorState=" + operatorState.length + " bytes" : "")
                + (operatorStateFile != null ? ", operatorStateFile=" + operatorStateFile : "") + "}";
    }
}
