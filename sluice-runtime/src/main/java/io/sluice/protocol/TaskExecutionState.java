package io.sluice.protocol;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;

/**
 * A task's report of a state change to its job master; {@code failure} is set for FAILED.
 *
 * @param awaitingFinalCheckpoint with {@code RUNNING}: the task's input ended and it waits for a final
 *                                checkpoint before it finishes (an operator of its chain commits its last
 *                                output only once a checkpoint covering it completed); the job master then
 *                                triggers checkpoints at it directly, as at a source
 */
public record TaskExecutionState(ExecutionAttemptId attemptId, ExecutionState state, Throwable failure,
                                 boolean awaitingFinalCheckpoint) implements java.io.Serializable {

    public TaskExecutionState {
        if (awaitingFinalCheckpoint && state != ExecutionState.RUNNING) {
            throw new IllegalArgumentException("Only a RUNNING task awaits a final checkpoint, not a " + state + " one ("
                    + attemptId + ")");
        }
    }

    public TaskExecutionState(ExecutionAttemptId attemptId, ExecutionState state, Throwable failure) {
        this(attemptId, state, failure, false);
    }
}
