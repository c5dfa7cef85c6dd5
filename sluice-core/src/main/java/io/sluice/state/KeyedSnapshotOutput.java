package io.sluice.state;

import io.sluice.core.serialization.DataOutputBuffer;

/**
 * Where a {@link KeyedSnapshotWriter} writes a keyed-state snapshot: a buffer it fills block by block,
 * and a hook after each key group's block. An output in memory ({@link #inMemory}) keeps the whole
 * snapshot in its buffer; a spilling output (the task's, for snapshots larger than it keeps in memory)
 * moves the buffer's bytes to a local file in {@link #groupWritten} and clears it, so that writing a
 * snapshot of any size needs memory for one key group only.
 *
 * <p>Threading: the one thread writing the snapshot.
 */
public interface KeyedSnapshotOutput {

    /** The buffer the next bytes go to; the same buffer for the whole snapshot. */
    DataOutputBuffer buffer();

    /** A key group's block (or the end marker) is complete in {@link #buffer()}: a spilling output may drain it. */
    void groupWritten();

    /** An output that keeps the whole snapshot in {@code buffer}. */
    static KeyedSnapshotOutput inMemory(DataOutputBuffer buffer) {
        return new KeyedSnapshotOutput() {
            @Override
            public DataOutputBuffer buffer() {
                return buffer;
            }

            @Override
            public void groupWritten() {
            }
        };
    }
}
