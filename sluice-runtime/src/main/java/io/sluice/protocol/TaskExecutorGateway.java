package io.sluice.protocol;

import io.sluice.graph.JobId;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.rpc.Acknowledge;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * How a job master talks to a task executor. Callable from any thread; work runs on the task
 * executor's main thread.
 */
public interface TaskExecutorGateway {

    String id();

    int numberOfSlots();

    /**
     * {@code host:port} of this task executor's data server, where task executors running the
     * consumers of its tasks' outputs fetch them, or {@code null} when its channels are in memory
     * only (every task executor of a {@code LocalCluster} without network data exchange). A
     * constant: a remote proxy answers it from the registration.
     */
    default String dataAddress() {
        return null;
    }

    /** Starts the task on its own thread; completes once it is accepted. State changes go to {@code jobMaster}. */
    CompletableFuture<Acknowledge> submitTask(TaskDeploymentDescriptor descriptor, JobMasterGateway jobMaster);

    /** Cancels the task; completes at once (the CANCELED state is reported when the task thread ends). */
    CompletableFuture<Acknowledge> cancelTask(ExecutionAttemptId task);

    /** Tells a source task to take a checkpoint and emit its barrier. */
    void triggerCheckpoint(ExecutionAttemptId task, long checkpointId, long timestampMillis);

    /**
     * Tells a source task to take a savepoint and emit its barrier: like {@link #triggerCheckpoint}, but
     * every task the barrier reaches writes a full snapshot in the canonical format, never an incremental one.
     * With {@code stop} (stop-with-savepoint) the source emits nothing after the barrier: no record, no
     * processing-time work, until it is cancelled (the job master cancels the job once the savepoint
     * completed) or triggered again (the savepoint failed, and the next checkpoint resumes it).
     */
    void triggerSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis, boolean stop);

    /** Checkpoint {@code checkpointId} completed: the task's operators hear it (a two-phase-commit sink commits). */
    void notifyCheckpointComplete(ExecutionAttemptId task, long checkpointId);

    /**
     * Checkpoint {@code checkpointId} will not complete (declined, expired, or given up): the task's
     * operators hear it. One-way. Nothing by default; no job master sends it yet (the place for a
     * checkpoint coordinator that tells tasks of aborted checkpoints).
     */
    default void notifyCheckpointAborted(ExecutionAttemptId task, long checkpointId) {
    }

    CompletableFuture<List<TaskMetrics>> requestTaskMetrics(JobId jobId);

    /**
     * Releases this task executor's data channels of deployment round {@code deployment} of {@code
     * jobId} (all its tasks have ended), both ends of the in-memory ones and the network ends; their
     * peers in other task executors hear of it. One-way; sent by the job master to every task
     * executor with a {@link #dataAddress()} of the round. Does nothing by default (in-memory
     * channels are released through the job manager's shuffle master).
     */
    default void releaseChannels(JobId jobId, int deployment) {
    }
}
