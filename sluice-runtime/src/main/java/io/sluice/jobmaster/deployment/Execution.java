package io.sluice.jobmaster.deployment;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.TaskExecutorGateway;

/**
 * One subtask's deployment in a {@link DeploymentRound}: where it runs, and its state as the job
 * master last heard it. A task restores its state before it runs, so it may be reading its restore
 * checkpoint until it reports {@code RUNNING} or ends.
 *
 * <p>Threading: the job master's main thread only (its round checks it).
 */
public final class Execution {
    private final ExecutionAttemptId id;
    private final TaskExecutorGateway taskExecutor;
    private final boolean source;
    private ExecutionState state = ExecutionState.DEPLOYING;
    /** Whether the task may still be reading its restore state: until it reports RUNNING or ends. */
    private boolean restoring;
    /** Whether the task's input ended and it awaits its final checkpoint (it reported so while RUNNING). */
    private boolean awaitingFinalCheckpoint;

    Execution(ExecutionAttemptId id, TaskExecutorGateway taskExecutor, boolean source, boolean restoring) {
        this.id = id;
        this.taskExecutor = taskExecutor;
        this.source = source;
        this.restoring = restoring;
    }

    public ExecutionAttemptId id() {
        return id;
    }

    public TaskExecutorGateway taskExecutor() {
        return taskExecutor;
    }

    /** Whether the subtask belongs to a source vertex (it receives the checkpoint triggers). */
    public boolean isSource() {
        return source;
    }

    public ExecutionState state() {
        return state;
    }

    public boolean isRestoring() {
        return restoring;
    }

    /**
     * Whether the task awaits its final checkpoint: its input ended, and it finishes once a checkpoint it
     * takes completed. It is triggered directly, as a source is.
     */
    public boolean isAwaitingFinalCheckpoint() {
        return awaitingFinalCheckpoint;
    }

    void setState(ExecutionState state) {
        this.state = state;
        if (state != ExecutionState.RUNNING) {
            awaitingFinalCheckpoint = false;
        }
    }

    void setAwaitingFinalCheckpoint() {
        if (state != ExecutionState.RUNNING) {
            throw new IllegalStateException("Task " + id + " is " + state + ": only a running task awaits a final"
                    + " checkpoint");
        }
        awaitingFinalCheckpoint = true;
    }

    void setRestoring(boolean restoring) {
        this.restoring = restoring;
    }
}
