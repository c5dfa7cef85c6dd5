package io.sluice.checkpoint;

/** A checkpoint failed, or too many in a row did. */
public class CheckpointException extends Exception {
    public CheckpointException(String message) {
        super(message);
    }

    public CheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
