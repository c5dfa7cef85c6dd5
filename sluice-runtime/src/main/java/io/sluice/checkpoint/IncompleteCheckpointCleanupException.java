package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import java.util.List;

/**
 * An ended job's checkpoints were to be deleted, but checkpoint storage refused some deletions
 * (it was down, say). The pointers are gone already, so nothing will restore from the files; they
 * only take space. The store remembers what is left, and calling its discarding shutdown again
 * retries exactly that.
 */
public final class IncompleteCheckpointCleanupException extends CheckpointException {
    private final List<Long> remaining;

    public IncompleteCheckpointCleanupException(JobId jobId, JobStatus status, String location, List<Long> remaining,
                                                Throwable cause) {
        super("Could not delete " + (remaining.isEmpty() ? "the checkpoint directory" : "checkpoints " + remaining)
                + " of job " + jobId + " in " + location + " after the job " + status + " ("
                + cause.getMessage() + "); retried until storage answers", cause);
        this.remaining = List.copyOf(remaining);
    }

    /** Checkpoint ids whose files are still there (empty when only the job's directory is left). */
    public List<Long> remaining() {
        return remaining;
    }
}
