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
 */
public record JobSummary(JobId jobId, String name, JobStatus status, long startTimeMillis, long lastTransitionMillis) implements java.io.Serializable {

    /** Without times (both -1). */
    public JobSummary(JobId jobId, String name, JobStatus status) {
        this(jobId, name, status, -1, -1);
    }
}
