package io.sluice.job;

import io.sluice.graph.JobId;
import io.sluice.util.Throwables;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;

/**
 * How a job ended. Kept (and, with HA, persisted) so that a finished job is never run again.
 *
 * <p>It also says what the job may have left in checkpoint storage, so that whichever job manager
 * leads later can finish the clean-up (after a crash between the result write and the clean-up) and
 * expire retained checkpoints once the job graph, which named the location, is gone.
 *
 * @param failureMessage      the root cause's message for FAILED jobs, else {@code null}
 * @param failureStackTrace   the full stack trace of the failure, else {@code null}
 * @param checkpointsLocation the checkpoint storage location under which {@code <jobId>/} holds the job's
 *                            checkpoints while any may be left ({@code file:///...}, {@code s3://...}); {@code null}
 *                            once they are deleted, and in results written before Sluice recorded it
 * @param deleteCheckpoints   whether those checkpoints are to be deleted at once (FINISHED, or CANCELED with
 *                            {@code checkpoints.retain-on-cancel: false}); else they are retained until they
 *                            expire ({@code checkpoints.ended-job-retention}) or are deleted on request
 */
public record JobResult(JobId jobId, String jobName, JobStatus status, long endTimestampMillis,
                        String failureMessage, String failureStackTrace, String checkpointsLocation,
                        boolean deleteCheckpoints) implements Serializable {

    /** A result that records no checkpoints. */
    public JobResult(JobId jobId, String jobName, JobStatus status, long endTimestampMillis, String failureMessage,
                     String failureStackTrace) {
        this(jobId, jobName, status, endTimestampMillis, failureMessage, failureStackTrace, null, false);
    }

    public static JobResult of(JobId jobId, String name, JobStatus status, long endMillis, Throwable failure) {
        if (failure == null) {
            return new JobResult(jobId, name, status, endMillis, null, null);
        }
        StringWriter w = new StringWriter();
        failure.printStackTrace(new PrintWriter(w));
        return new JobResult(jobId, name, status, endMillis, describe(failure), w.toString());
    }

    /** This result, recording that the job's checkpoints under {@code location} are kept or to be deleted. */
    public JobResult withCheckpoints(String location, boolean delete) {
        return new JobResult(jobId, jobName, status, endTimestampMillis, failureMessage, failureStackTrace, location,
                delete);
    }

    /** This result, recording that the job's checkpoints are deleted (nothing is left in checkpoint storage). */
    public JobResult withCheckpointsDeleted() {
        return new JobResult(jobId, jobName, status, endTimestampMillis, failureMessage, failureStackTrace, null, false);
    }

    /** Whether checkpoints of the job may be left in storage (see {@link #checkpointsLocation}). */
    public boolean mayHaveCheckpoints() {
        return checkpointsLocation != null;
    }

    /** "ExceptionClass: message" of the innermost cause. */
    public static String describe(Throwable failure) {
        Throwable root = Throwables.rootCause(failure);
        String type = root instanceof io.sluice.rpc.remote.SerializedThrowable remote ? remote.originalClassName()
                : root.getClass().getName(); // a failure from another process whose class is not here
        return type + ": " + root.getMessage();
    }
}
