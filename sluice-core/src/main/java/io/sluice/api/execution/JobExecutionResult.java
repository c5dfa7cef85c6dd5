package io.sluice.api.execution;

import io.sluice.graph.JobId;
import java.util.Objects;

/**
 * What {@link JobExecutor#execute} reports.
 *
 * @param jobId   the id the job runs (or ran) under
 * @param jobName the job's name
 * @param status  the job's status when {@code execute} returned, e.g. {@code FINISHED} after a local
 *                run, or {@code SUBMITTED} when a cluster accepted it and runs it on its own
 */
public record JobExecutionResult(JobId jobId, String jobName, String status) {
    public JobExecutionResult {
        Objects.requireNonNull(jobId, "jobId");
        Objects.requireNonNull(status, "status");
    }
}
