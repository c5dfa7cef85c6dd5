package io.sluice.ha;

import io.sluice.graph.JobId;

/** {@link JobGraphStore#putJobGraph} found a job graph with the same job id: the job was submitted before. */
public class JobAlreadySubmittedException extends Exception {
    private final JobId jobId;

    public JobAlreadySubmittedException(JobId jobId, String where) {
        super("Job " + jobId + " was already submitted (a job graph with this id is stored at " + where + ")");
        this.jobId = jobId;
    }

    public JobId jobId() {
        return jobId;
    }
}
