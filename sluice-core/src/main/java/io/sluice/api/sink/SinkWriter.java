package io.sluice.api.sink;

import java.util.List;

/**
 * Writes one subtask's records for a {@link TwoPhaseCommitSink} and pre-commits them at each checkpoint.
 *
 * <p>Threading: called only from the subtask's task thread.
 */
public interface SinkWriter<IN, C> extends AutoCloseable {

    /** Writes {@code value}: durable at the next {@link #preCommit} at the latest, visible only once committed. */
    void write(IN value) throws Exception;

    /**
     * The barrier of {@code checkpointId} arrived: every record before it was written. Makes them durable
     * (not yet visible) and returns what the committer must do to make them visible once the checkpoint
     * completes; empty if nothing was written since the previous pre-commit. Throwing declines the
     * checkpoint and fails the task, except for a {@link SinkUnavailableException}: the sink's system did
     * not answer and the writer kept everything for the next barrier, so only this checkpoint is declined
     * and the task keeps running.
     */
    List<C> preCommit(long checkpointId) throws Exception;

    /**
     * The input ended: as {@link #preCommit}, for the records after the last barrier. The returned
     * committables become part of the subtask's final checkpoint (the next one; the writer is not asked to
     * pre-commit again) and are committed once it completed, before the task finishes; without checkpoints
     * they are committed at once. By default {@code preCommit(Long.MAX_VALUE)}.
     */
    default List<C> endOfInput() throws Exception {
        return preCommit(Long.MAX_VALUE);
    }

    /**
     * Checkpoint {@code checkpointId}, taken by this attempt after its restore, completed: no checkpoint
     * taken before it can be restored automatically any more, so what previous attempts left behind
     * and no committable names can be removed now. Nothing by default.
     */
    default void checkpointCompleted(long checkpointId) throws Exception {}

    /** Releases resources; also called on cancellation and failure. Uncommitted output stays invisible. */
    @Override
    default void close() throws Exception {}
}
