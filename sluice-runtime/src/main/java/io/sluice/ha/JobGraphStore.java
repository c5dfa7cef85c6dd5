package io.sluice.ha;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import java.util.Collection;

/**
 * Submitted jobs that have not reached a globally terminal state, so that a new job manager can
 * run them. All methods block on I/O: call them from an I/O executor, never a main thread.
 *
 * <p>{@link #putJobGraph} adds a <b>new</b> job: it is conditional on no graph with the same job
 * id being stored (an atomic create where the storage offers one), and a duplicate is rejected
 * with {@link JobAlreadySubmittedException}, so that of concurrent submissions of one job id
 * exactly one is accepted. {@link #removeJobGraph} is idempotent.
 */
public interface JobGraphStore {
    /**
     * Stores the graph of a newly submitted job. Called by the leading Dispatcher inside its
     * dispatcher leadership's {@link LeaderElection#runIfLeader} (so a deposed Dispatcher's put is
     * fenced where the implementation fences writes).
     *
     * @throws JobAlreadySubmittedException if a graph with this job id is already stored (nothing was written)
     */
    void putJobGraph(JobGraph jobGraph) throws Exception;

    /** The ids of all stored jobs: one listing, without reading the graphs. */
    Collection<JobId> jobIds() throws Exception;

    /** Reads one job graph; throws if it is missing or unreadable (the message names the job and location). */
    JobGraph recoverJobGraph(JobId jobId) throws Exception;

    void removeJobGraph(JobId jobId) throws Exception;
}
