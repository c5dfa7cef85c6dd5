package io.sluice.job;

import io.sluice.graph.JobId;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;

/**
 * How a job ended. Kept (and, with HA, persisted) so that a finished job is never run again.
 *
 * @param failureMessage    the root cause's message for FAILED jobs, else {@code null}
 * @param failureStackTrace the full stack trace of the failure, else {@code null}
 */
public record JobResult(JobId jobId, String jobName, JobStatus status, long endTimestampMillis,
                        String failureMessage, String failureStackTrace) implements Serializable {

    public static JobResult of(JobId jobId, String name, JobStatus status, long endMillis, Throwable failure) {
        if (failure == null) {
            return new JobResult(jobId, name, status, endMillis, null, null);
        }
        StringWriter w = new StringWriter();
        failure.printStackTrace(new PrintWriter(w));
        return new JobResult(jobId, name, status, endMillis, describe(failure), w.toString());
    }

    /** "ExceptionClass: message" of the innermost cause. */
    public static String describe(Throwable failure) {
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String type = root instanceof io.sluice.rpc.remote.SerializedThrowable remote ? remote.originalClassName()
                : root.getClass().getName(); // a failure from another process whose class is not here
        return type + ": " + root.getMessage();
    }
}
