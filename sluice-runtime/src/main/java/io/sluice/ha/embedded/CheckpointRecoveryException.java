package io.sluice.ha.embedded;

/**
 * A job has retained checkpoints but none of them could be read, and it may not start from empty
 * state. Retrying does not help: the message lists each checkpoint and why it is unusable, and
 * says how to proceed (fix or restore the files, or allow starting without a checkpoint).
 */
public final class CheckpointRecoveryException extends RuntimeException {
    public CheckpointRecoveryException(String message) {
        super(message);
    }
}
