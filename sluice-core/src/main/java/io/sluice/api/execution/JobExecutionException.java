package io.sluice.api.execution;

import io.sluice.graph.JobId;

/** A job run through {@link JobExecutor} was rejected, failed or was cancelled; the message says which and why. */
public class JobExecutionException extends Exception {
    private final transient JobId jobId;

    public JobExecutionException(JobId jobId, String message) {
        super(message);
        this.jobId = jobId;
    }

    public JobExecutionException(JobId jobId, String message, Throwable cause) {
        super(message, cause);
        this.jobId = jobId;
    }

    /** The job concerned, or {@code null} if it never got an id. */
    public JobId jobId() {
        return jobId;
    }
}
