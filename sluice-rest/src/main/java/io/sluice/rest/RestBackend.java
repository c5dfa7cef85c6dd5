package io.sluice.rest;

import io.sluice.protocol.JobSummary;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.rest.model.JarInfo;
import io.sluice.rpc.Acknowledge;
import java.io.InputStream;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Everything a REST handler may ask of the cluster. Callable from any thread; every method returns
 * at once with a future answered from the components' gateways, and never does I/O on the calling
 * thread or on a component's main thread (jar files are written and read on an I/O executor).
 * Failures: {@link io.sluice.protocol.UnknownJobException} (404), {@link RestException} (its status),
 * {@link IllegalArgumentException} (400), {@link IllegalStateException} (409).
 */
public interface RestBackend {

    /** Version, leader, task executors and slots, and job counts. */
    CompletableFuture<ClusterOverview> overview();

    /** Every job the answering job manager knows, running or ended. */
    CompletableFuture<List<JobSummary>> listJobs();

    /** Status, transitions, vertices, restarts, checkpoints and (while INITIALIZING) recovery progress. */
    CompletableFuture<JobDetails> jobDetails(JobId jobId);

    /**
     * The graph of a job the cluster runs now (for the operator graph's edges), or empty when it is
     * not available (an ended job, or a backend without graphs).
     */
    default CompletableFuture<java.util.Optional<io.sluice.graph.JobGraph>> jobGraph(JobId jobId) {
        return CompletableFuture.completedFuture(java.util.Optional.empty());
    }

    /** Cancels the job; completes once the cancel is accepted (the job ends CANCELED later). */
    CompletableFuture<Acknowledge> cancelJob(JobId jobId);

    /**
     * Stores an uploaded jar under a generated id; {@code originalFileName} is only shown, never used
     * as a path. Reads {@code content} (at most {@code maxBytes}, else fails with a 413
     * {@link RestException}) before the future completes. Fails with 400 when it is not a jar.
     */
    CompletableFuture<JarInfo> uploadJar(String originalFileName, InputStream content, long maxBytes);

    /** The stored jars, oldest first. */
    CompletableFuture<List<JarInfo>> listJars();

    /**
     * Deletes the retained checkpoints of an ended job. Fails with {@link IllegalStateException} (409)
     * while the job has not ended or a running job was started from them.
     */
    default CompletableFuture<io.sluice.protocol.CheckpointsDeletion> deleteCheckpoints(JobId jobId) {
        return CompletableFuture.failedFuture(new RestException(501, "This server cannot delete checkpoints"));
    }

    /**
     * Takes a savepoint of a running job into a new directory under {@code directory} ({@code null}: the job's
     * default), then, with {@code stop}, cancels the job (only if the savepoint completed). Completes once the
     * savepoint is written. Fails with {@link io.sluice.checkpoint.CheckpointException} (409) saying why the
     * savepoint failed (the job keeps running), {@link IllegalStateException} (409) for a job that does not run.
     */
    default CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(JobId jobId, String directory,
                                                                              boolean stop) {
        return CompletableFuture.failedFuture(new RestException(501, "This server cannot take savepoints"));
    }

    /** The savepoints the answering job manager took of a job, oldest first. */
    default CompletableFuture<List<io.sluice.checkpoint.Savepoint>> listSavepoints(JobId jobId) {
        return CompletableFuture.completedFuture(List.of());
    }

    /**
     * Deletes a stored jar and answers what it was. Fails with 404 for an unknown jar and with
     * {@link IllegalStateException} (409) while a job run from it has not ended.
     */
    default CompletableFuture<JarInfo> deleteJar(String jarId) {
        return CompletableFuture.failedFuture(new RestException(501, "This server cannot delete jars"));
    }

    /** Builds the jar's job with {@code request} and submits it; completes with the job id once accepted. */
    CompletableFuture<JobId> runJar(String jarId, RunRequest request);

    /**
     * Who accepted a job this backend just submitted: the view of {@code jobId} with the dispatcher
     * leader's contender id and whether this job manager forwarded it. The default names nobody (one
     * job manager). From memory; any thread.
     */
    default io.sluice.rest.model.RunView submitted(JobId jobId) {
        return new io.sluice.rest.model.RunView(jobId.value());
    }
}
