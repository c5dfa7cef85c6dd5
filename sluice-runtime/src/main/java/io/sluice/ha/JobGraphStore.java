package io.sluice.ha;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.util.Collection;

/**
 * Submitted jobs that have not reached a globally terminal state, so that a new job manager can
 * run them. All methods block on I/O: call them from an I/O executor, never a main thread.
 * {@link #putJobGraph} and {@link #removeJobGraph} are idempotent.
 */
public interface JobGraphStore {
    void putJobGraph(JobGraph jobGraph) throws Exception;

    /** The ids of all stored jobs: one listing, without reading the graphs. */
    Collection<JobId> jobIds() throws Exception;

    /** Reads one job graph; throws if it is missing or unreadable (the message names the job and location). */
    JobGraph recoverJobGraph(JobId jobId) throws Exception;

    void removeJobGraph(JobId jobId) throws Exception;
}
