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
 * @param finalMetrics            with an end state (FINISHED, CANCELED, FAILED): the task's counters at its end,
 *                                which the job master keeps for the job's details (the task executor no longer
 *                                has the task to ask); {@code null} otherwise, or when the task never ran
 */
public record TaskExecutionState(ExecutionAttemptId attemptId, ExecutionState state, Throwable failure,
                                 boolean awaitingFinalCheckpoint, TaskMetrics finalMetrics)
        implements java.io.Serializable {

    public TaskExecutionState {
        if (awaitingFinalCheckpoint && state != ExecutionState.RUNNING) {
            throw new IllegalArgumentException("Only a RUNNING task awaits a final checkpoint, not a " + state + " one ("
                    + attemptId + ")");
        }
        if (finalMetrics != null && (!state.isTerminal() || !finalMetrics.attemptId().equals(attemptId))) {
            throw new IllegalArgumentException("Final counters go with an end state of the same task, not with " + state
                    + " of " + attemptId + " (counters of " + finalMetrics.attemptId() + ")");
        }
    }

    public TaskExecutionState(ExecutionAttemptId attemptId, ExecutionState state, Throwable failure,
                              boolean awaitingFinalCheckpoint) {
        this(attemptId, state, failure, awaitingFinalCheckpoint, null);
    }

    public TaskExecutionState(ExecutionAttemptId attemptId, ExecutionState state, Throwable failure) {
        this(attemptId, state, failure, false);
    }

    /** This report with the task's counters at its end (an end state only). */
    public TaskExecutionState withFinalMetrics(TaskMetrics metrics) {
        return new TaskExecutionState(attemptId, state, failure, awaitingFinalCheckpoint, metrics);
    }
}
