package io.sluice.state;

import io.sluice.core.serialization.DataInputBuffer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * One canonical keyed-state snapshot to restore from: bytes in memory (inline in the checkpoint
 * metadata, a task-local copy) or a state file read as a stream, so that a restore of any size needs
 * memory for one key group at a time ({@link KeyedSnapshotReader}).
 *
 * <p>Threading: opened once, on the restoring task thread.
 */
public interface KeyedSnapshotInput {

    /** A fresh stream over the snapshot's bytes; the reader closes it. */
    InputStream open() throws IOException;

    /** The snapshot's length in bytes, or -1 if unknown (then a truncation is only found at its end). */
    long length();

    /** The remaining bytes of {@code in} (from its position to its limit). */
    static KeyedSnapshotInput of(DataInputBuffer in) {
        int offset = in.position();
        int length = in.remaining();
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        in.position(offset); // leaves the buffer as it was
        return of(bytes);
    }

    /** {@code bytes}, whole. */
    static KeyedSnapshotInput of(byte[] bytes) {
        return new KeyedSnapshotInput() {
            @Override
            public InputStream open() {
                return new ByteArrayInputStream(bytes);
            }

            @Override
            public long length() {
                return bytes.length;
            }
        };
    }
}
