package io.sluice.checkpoint;

import io.sluice.job.JobStatus;

/**
 * Which ended jobs keep their checkpoints: a job's checkpoints outlive it unless it FINISHED (its
 * output is complete; nothing is left to resume) or it was CANCELED with
 * {@code checkpoints.retain-on-cancel = false}. A FAILED job always keeps its retained checkpoints
 * and their HA pointers, so it can be started again from them ({@code checkpoints.restore-from}).
 * A SUSPENDED job keeps everything for the next leader. Stateless.
 */
public final class CheckpointRetention {
    private CheckpointRetention() {}

    /** Whether a job that reached {@code status} deletes its checkpoints. */
    public static boolean discards(JobStatus status, boolean discardOnCancel) {
        return status == JobStatus.FINISHED || (status == JobStatus.CANCELED && discardOnCancel);
    }

    /** {@link #discards} with the default of {@code checkpoints.retain-on-cancel} (retain). */
    public static boolean discardsByDefault(JobStatus status) {
        return discards(status, false);
    }
}
