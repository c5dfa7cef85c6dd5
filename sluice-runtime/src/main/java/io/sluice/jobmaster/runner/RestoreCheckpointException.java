package io.sluice.jobmaster.runner;

/**
 * The checkpoint a job was told to start from ({@code checkpoints.restore-from}) cannot be used:
 * the path holds no checkpoint, its metadata is corrupt, it lies outside the job's checkpoint
 * directory, or the named job has no readable retained checkpoint. Retrying does not help; the
 * message names the path and says what to do.
 */
public final class RestoreCheckpointException extends IllegalArgumentException {
    public RestoreCheckpointException(String message) {
        super(message);
    }

    public RestoreCheckpointException(String message, Throwable cause) {
        super(message, cause);
    }
}
