package io.sluice.dispatcher;

import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobStatus;

/**
 * One line of a job listing.
 *
 * @param name {@code null} for a job whose graph is still being read during recovery
 */
public record JobSummary(JobId jobId, String name, JobStatus status) {
}
