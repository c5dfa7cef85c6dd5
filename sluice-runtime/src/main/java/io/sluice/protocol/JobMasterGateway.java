package io.sluice.protocol;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.rpc.Acknowledge;
import io.sluice.job.ExecutionAttemptId;
import java.util.concurrent.CompletableFuture;

/**
 * How task executors, the job manager runner and the Dispatcher talk to a job master. Every method
 * may be called from any thread; the work runs on the job master's main thread, and futures
 * complete there.
 */
public interface JobMasterGateway {

    CompletableFuture<Acknowledge> updateTaskExecutionState(TaskExecutionState state);

    void acknowledgeCheckpoint(ExecutionAttemptId task, long checkpointId, TaskStateHandle state);

    void declineCheckpoint(ExecutionAttemptId task, long checkpointId, Throwable reason);

    /** Completes with the job's status, counters and per-vertex progress. */
    CompletableFuture<JobDetails> requestJobDetails();

    /** Starts cancelling; completes when the request was accepted (not when the job is CANCELED). */
    CompletableFuture<Acknowledge> cancel();

    /**
     * Takes a savepoint into a new directory under {@code targetDirectory} ({@code null}: the default,
     * {@code <checkpoints.dir>/savepoints}); with {@code stop}, the job is then cancelled (it ends CANCELED), but
     * only if the savepoint completed: if it failed the job keeps running and the future fails saying why.
     * Completes once the savepoint's metadata is written (with {@code stop}: once the cancel is under way).
     */
    default CompletableFuture<io.sluice.checkpoint.Savepoint> triggerSavepoint(String targetDirectory, boolean stop) {
        return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getSimpleName()
                + " takes no savepoints"));
    }
}
