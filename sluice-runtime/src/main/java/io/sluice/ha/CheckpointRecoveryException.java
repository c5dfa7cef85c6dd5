package io.sluice.ha;

/**
 * Recovery found retained checkpoints but none could be used; retrying will not help. The job
 * fails with this message instead of silently starting from empty state.
 */
public class CheckpointRecoveryException extends RuntimeException {
    public CheckpointRecoveryException(String message) {
        super(message);
    }

    public CheckpointRecoveryException(String message, Throwable cause) {
        super(message, cause);
    }
}
