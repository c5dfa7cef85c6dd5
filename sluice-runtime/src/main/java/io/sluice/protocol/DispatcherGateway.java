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
 * prompt whatever the storage does. The Dispatcher answers {@link #listJobs()} and {@link
 * #requestJobDetails} on the calling thread from published snapshots, without any main thread.
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
     * Deletes the retained checkpoints of an ended job (HA pointers first, then every file under its
     * checkpoint directory) and answers what was deleted. Fails with {@link IllegalStateException}
     * while the job has not ended, or a running job was started from those checkpoints, and with
     * {@link UnknownJobException} for a job this job manager does not know.
     */
    default CompletableFuture<CheckpointsDeletion> deleteCheckpoints(JobId jobId) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " cannot delete checkpoints"));
    }

    /**
     * Takes a savepoint of a running job into a new directory under {@code targetDirectory} ({@code null}: the
     * job's default, {@code <checkpoints.dir>/savepoints}); with {@code stop} the job is then cancelled (it ends
     * CANCELED), only if the savepoint completed. Fails with {@link UnknownJobException} for a job this job manager
     * does not know, {@link IllegalStateException} for one that does not run, and
     * {@link io.sluice.checkpoint.CheckpointException} saying why the savepoint failed (the job keeps running).
     */
    default CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(JobId jobId, String targetDirectory,
                                                                              boolean stop) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " takes no savepoints"));
    }

    /**
     * The savepoints taken of a job (running or ended), oldest first, at most the newest 100; empty for a job
     * without any. Kept in the HA services' savepoint store where it keeps them (embedded and ZooKeeper HA), so
     * a job manager that took over after a failover, or a restarted cluster, lists the savepoints taken before;
     * the leader answers from memory once it read them back.
     */
    default CompletableFuture<List<io.sluice.checkpoint.Savepoint>> listSavepoints(JobId jobId) {
        return CompletableFuture.completedFuture(List.of());
    }

    /**
     * The graph of a job this job manager currently runs or recovers (its vertices and edges, for
     * the dashboard's operator graph); empty for a job it does not run (ended, unknown, or led
     * elsewhere). Answered from memory, without I/O.
     */
    default CompletableFuture<java.util.Optional<JobGraph>> requestJobGraph(JobId jobId) {
        return CompletableFuture.completedFuture(java.util.Optional.empty());
    }
}
