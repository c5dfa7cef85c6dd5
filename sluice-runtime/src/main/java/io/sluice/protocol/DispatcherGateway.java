package io.sluice.protocol;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.rpc.Acknowledge;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The entry point of a job manager, for clients (Java API, CLI, REST). Callable from any thread;
 * answers come from the Dispatcher's main thread, which never waits for storage, so they are
 * prompt whatever the storage does.
 */
public interface DispatcherGateway {

    /**
     * Validates and persists the job, then starts it. Fails with {@link JobSubmissionException}
     * naming the problem; a rejected job leaves everything else untouched.
     */
    CompletableFuture<JobId> submitJob(JobGraph jobGraph);

    /** All jobs this job manager knows, running or ended, plus placeholders for jobs still being recovered. */
    CompletableFuture<List<JobSummary>> listJobs();

    /** Status, progress and (while INITIALIZING) recovery progress of one job. */
    CompletableFuture<JobDetails> requestJobDetails(JobId jobId);

    CompletableFuture<Acknowledge> cancelJob(JobId jobId);

    /** Completes when the job is globally terminal. */
    CompletableFuture<JobResult> requestJobResult(JobId jobId);

    /**
     * The graph of a job this job manager currently runs or recovers (its vertices and edges, for
     * the dashboard's operator graph); empty for a job it does not run (ended, unknown, or led
     * elsewhere). Answered from memory, without I/O.
     */
    default CompletableFuture<java.util.Optional<JobGraph>> requestJobGraph(JobId jobId) {
        return CompletableFuture.completedFuture(java.util.Optional.empty());
    }
}
