package io.sluice.ha;

import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import java.util.Collection;
import java.util.Optional;

/**
 * Results of jobs that reached a globally terminal state. A result is written before the job's
 * graph and checkpoints are cleaned up, so a job with a result is never run again; it is removed
 * ({@link #removeResult}) only after the graph, when the job is forgotten
 * ({@code jobmanager.ended-jobs.retention}). Blocking; I/O executor only. {@link #putResult} is
 * idempotent for the same result, {@link #removeResult} for a result already gone.
 */
public interface JobResultStore {
    void putResult(JobResult result) throws Exception;

    boolean hasResult(JobId jobId) throws Exception;

    Optional<JobResult> result(JobId jobId) throws Exception;

    Collection<JobResult> results() throws Exception;

    /** Removes the result of {@code jobId}; nothing if there is none. Only once the job's graph is gone. */
    void removeResult(JobId jobId) throws Exception;
}
