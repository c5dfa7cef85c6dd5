package io.sluice.state;

import io.sluice.core.serialization.DataOutputBuffer;

/** A consistent copy of keyed state, captured on the task thread, written on an I/O thread. */
public interface KeyedStateSnapshot {
    /** Serializes the snapshot. May be called from any one thread, once. */
    void writeTo(DataOutputBuffer out);
}
