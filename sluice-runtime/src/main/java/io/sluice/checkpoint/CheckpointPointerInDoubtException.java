package io.sluice.checkpoint;

import io.sluice.graph.JobId;

/**
 * The pointer write of a checkpoint ({@link CompletedCheckpointStore#addCheckpoint}) was attempted
 * and failed in a way that does not tell whether the pointer landed: the write was interrupted by a
 * revocation after its ZooKeeper transaction was sent, the connection was lost before the answer
 * came, or the file system failed mid-rename. The checkpoint does not count as completed, but the
 * HA store may name it, so its files must be kept: the next leader restores from it if the pointer
 * landed; otherwise they are removed with the job's checkpoints (a finished job's cleanup deletes
 * everything under its checkpoint directory).
 *
 * <p>A write refused before anything was sent (the session no longer led) is not in doubt and
 * is reported as the refusal itself.
 */
public final class CheckpointPointerInDoubtException extends CheckpointException {
    private final long checkpointId;

    public CheckpointPointerInDoubtException(JobId jobId, long checkpointId, String metadataPath, Throwable cause) {
        super("The pointer write of checkpoint " + checkpointId + " of job " + jobId + " (to " + metadataPath
                + ") failed after it was sent, so it may have landed (" + cause + "); the checkpoint is not counted"
                + " as completed, and its files are kept because the HA store may name it", cause);
        this.checkpointId = checkpointId;
    }

    public long checkpointId() {
        return checkpointId;
    }
}
