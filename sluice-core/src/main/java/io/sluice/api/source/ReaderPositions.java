package io.sluice.api.source;

import java.nio.ByteBuffer;

/**
 * Shared argument checks and position encoding for the built-in source readers. Stateless;
 * safe from any thread.
 */
final class ReaderPositions {
    private ReaderPositions() {}

    static void checkSubtask(String source, int subtaskIndex, int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException(source + ": parallelism must be at least 1, was " + parallelism);
        }
        if (subtaskIndex < 0 || subtaskIndex >= parallelism) {
            throw new IllegalArgumentException(source + ": subtask index " + subtaskIndex
                    + " is outside [0, " + (parallelism - 1) + "] for parallelism " + parallelism);
        }
    }

    static byte[] encodeLong(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    static byte[] encodeInt(int value) {
        return ByteBuffer.allocate(Integer.BYTES).putInt(value).array();
    }

    static long decodeLong(String source, byte[] position) {
        checkLength(source, position, Long.BYTES);
        return ByteBuffer.wrap(position).getLong();
    }

    static int decodeInt(String source, byte[] position) {
        checkLength(source, position, Integer.BYTES);
        return ByteBuffer.wrap(position).getInt();
    }

    private static void checkLength(String source, byte[] position, int expected) {
        if (position == null) {
            throw new IllegalArgumentException(source + ": cannot restore a null position");
        }
        if (position.length != expected) {
            throw new IllegalArgumentException(source + ": a position is " + expected + " bytes, but the restored one is "
                    + position.length + " bytes. It was probably written by a different source: check that the"
                    + " checkpoint belongs to this job and that the source at this position was not replaced");
        }
    }
}
