package io.sluice.ha;

import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import java.util.Collection;
import java.util.Optional;

/**
 * Results of jobs that reached a globally terminal state. A result is written before the job's
 * graph and checkpoints are cleaned up, so a job with a result is never run again.
 * Blocking; I/O executor only. {@link #putResult} is idempotent for the same result.
 */
public interface JobResultStore {
    void putResult(JobResult result) throws Exception;

    boolean hasResult(JobId jobId) throws Exception;

    Optional<JobResult> result(JobId jobId) throws Exception;

    Collection<JobResult> results() throws Exception;
}
