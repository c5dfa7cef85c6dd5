package io.sluice.protocol;

import io.sluice.graph.JobId;

/** No job with this id is known to this job manager. */
public class UnknownJobException extends RuntimeException {
    public UnknownJobException(JobId jobId) {
        super("No job " + jobId + " is known to this job manager (ended jobs are forgotten after"
                + " jobmanager.ended-jobs.retention, or beyond jobmanager.ended-jobs.max-count)");
    }

    /** With a hint, e.g. that this job manager is a standby and which one leads. */
    public UnknownJobException(JobId jobId, String hint) {
        super("No job " + jobId + " is known to this job manager. " + hint);
    }
}
