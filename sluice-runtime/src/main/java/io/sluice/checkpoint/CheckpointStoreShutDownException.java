package io.sluice.checkpoint;

import io.sluice.graph.JobId;

/**
 * A checkpoint was to be added to a {@link CompletedCheckpointStore} that is already shut down: the
 * job ended (or this job master's session did) while the checkpoint was being finalized. No pointer
 * is written; the checkpoint's files must be discarded by whoever wrote them.
 */
public final class CheckpointStoreShutDownException extends CheckpointException {
    private final long checkpointId;

    public CheckpointStoreShutDownException(JobId jobId, long checkpointId, String shutDownAs) {
        super("Checkpoint " + checkpointId + " of job " + jobId + " completed after the job's checkpoint store was"
                + " shut down (the job is " + shutDownAs + "); no pointer is written and its files are discarded");
        this.checkpointId = checkpointId;
    }

    public long checkpointId() {
        return checkpointId;
    }
}
