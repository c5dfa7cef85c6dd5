package io.sluice.api.source;

import io.sluice.api.functions.Collector;

/**
 * Reads one subtask's share of a {@link Source}. Called only from its task thread, which
 * interleaves {@link #emit} calls with checkpoints: a checkpoint's position is taken between two
 * calls, so it covers exactly the records emitted so far.
 */
public interface SourceReader<T> extends AutoCloseable {
    /** Returned by {@link #emit} once the reader has no more records. */
    int END_OF_INPUT = -1;

    /**
     * Emits up to {@code maxRecords} records. Returns how many were emitted (0 is fine when none
     * is ready), or {@link #END_OF_INPUT}. A reader that knows when its next record will be ready
     * (a rate-limited one) returns 0 at once and says when through {@link #nanosUntilAvailable}; one
     * that cannot tell may park here, for at most about 10 ms per call, so that checkpoints and
     * cancellation stay prompt.
     */
    int emit(Collector<T> out, int maxRecords) throws Exception;

    /**
     * After an {@link #emit} that emitted nothing: how many nanoseconds from now until this reader has a
     * record to emit. The task then sleeps until that time, a checkpoint trigger, a timer of its operators
     * or a cancel, whichever comes first, so an idle or slow source costs no CPU in between; 0 (the
     * default) means ask again at once. Task thread only.
     */
    default long nanosUntilAvailable() {
        return 0;
    }

    /** The position after the last emitted record, as bytes; restored with {@link #restorePosition}. */
    byte[] snapshotPosition();

    /**
     * The position for checkpoint {@code checkpointId}; the task calls this one. By default
     * {@link #snapshotPosition()}; readers that act when a checkpoint completes remember it by id.
     */
    default byte[] snapshotPosition(long checkpointId) {
        return snapshotPosition();
    }

    /**
     * Checkpoint {@code checkpointId} completed (for monitoring, such as committing offsets back to a
     * Kafka consumer group; the position that counts is the one in the checkpoint). Task thread; nothing by default.
     */
    default void notifyCheckpointComplete(long checkpointId) throws Exception {}

    /** Called before the first {@link #emit} when the task restores from a checkpoint. */
    void restorePosition(byte[] position) throws Exception;

    /**
     * Called instead of {@link #restorePosition} when the source ran at another parallelism in the checkpoint
     * (only for a source whose {@link Source#redistributesPositions()} is {@code true}): the positions of
     * every subtask of that run, by subtask index. Each reader of the new run gets the same list and takes
     * its own share of what is left, so that together they emit every record the old subtasks had not
     * emitted, exactly once. Called before the first {@link #emit}; task thread.
     */
    default void restoreRescaledPositions(java.util.List<SubtaskPosition> previous) throws Exception {
        throw new UnsupportedOperationException(getClass().getName() + " cannot take positions written at another"
                + " parallelism; its source must not report redistributesPositions()");
    }

    @Override
    default void close() throws Exception {}
}
