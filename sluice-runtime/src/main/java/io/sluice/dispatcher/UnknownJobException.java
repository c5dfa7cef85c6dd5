package io.sluice.dispatcher;

import io.sluice.graph.JobId;

/** No job with this id is known to this job manager. */
public class UnknownJobException extends RuntimeException {
    public UnknownJobException(JobId jobId) {
        super("No job " + jobId + " is known to this job manager");
    }
}
