package io.sluice.state;

import io.sluice.core.serialization.DataOutputBuffer;

/** A consistent copy of keyed state, captured on the task thread, written on an I/O thread. */
public interface KeyedStateSnapshot {
    /**
     * Serializes the snapshot to {@code out}, through a {@link KeyedSnapshotWriter} on it (so that a spilling
     * output can drain it group by group). May be called from any one thread, once.
     */
    void writeTo(KeyedSnapshotOutput out);

    /** Serializes the whole snapshot into {@code out}. May be called from any one thread, once. */
    default void writeTo(DataOutputBuffer out) {
        writeTo(KeyedSnapshotOutput.inMemory(out));
    }
}
