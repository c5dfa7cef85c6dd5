package io.sluice.state;

import io.sluice.core.serialization.SerializationException;

/**
 * One of the snapshots handed to {@link KeyedStateBackend#restore} cannot be decoded (it is not a
 * keyed-state snapshot, it is truncated, or a serializer reads differently from how it wrote).
 * {@link #snapshotIndex()} says which, so that the caller can name its file.
 */
public class UnreadableSnapshotException extends SerializationException {
    private final int snapshotIndex;

    public UnreadableSnapshotException(int snapshotIndex, RuntimeException cause) {
        super(cause instanceof SerializationException ? cause.getMessage() : "Keyed-state snapshot #" + snapshotIndex
                + " cannot be decoded: " + cause, cause);
        this.snapshotIndex = snapshotIndex;
    }

    /** The position of the unreadable snapshot in the list passed to {@code restore}. */
    public int snapshotIndex() {
        return snapshotIndex;
    }
}
