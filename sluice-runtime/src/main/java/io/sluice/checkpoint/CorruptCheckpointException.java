package io.sluice.checkpoint;

/**
 * Checkpoint metadata could be read but not decoded: bad magic bytes, an unsupported format
 * version, a checksum mismatch, truncation or malformed content. The message names the path and
 * what is wrong. Retrying will not help; restore from an earlier checkpoint instead.
 */
public class CorruptCheckpointException extends RuntimeException {

    public CorruptCheckpointException(String message) {
        super(message);
    }

    public CorruptCheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
