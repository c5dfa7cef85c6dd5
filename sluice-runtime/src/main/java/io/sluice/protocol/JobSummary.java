package io.sluice.protocol;

import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;

/**
 * One line of a job listing.
 *
 * @param name                 {@code null} for a job whose graph is still being read during recovery
 * @param startTimeMillis      wall-clock time this job manager first knew the job (its first
 *                             transition), or -1 when unknown
 * @param lastTransitionMillis wall-clock time of the job's latest status change, or -1 when unknown
 * @param health               a crash loop, or checkpoints older than the threshold; {@link JobHealth#NONE} when neither
 */
public record JobSummary(JobId jobId, String name, JobStatus status, long startTimeMillis, long lastTransitionMillis,
                         JobHealth health) implements java.io.Serializable {

    public JobSummary {
        health = health == null ? JobHealth.NONE : health;
    }

    /** Without a health mark. */
    public JobSummary(JobId jobId, String name, JobStatus status, long startTimeMillis, long lastTransitionMillis) {
        this(jobId, name, status, startTimeMillis, lastTransitionMillis, JobHealth.NONE);
    }

    /** Without times (both -1). */
    public JobSummary(JobId jobId, String name, JobStatus status) {
        this(jobId, name, status, -1, -1);
    }
}
