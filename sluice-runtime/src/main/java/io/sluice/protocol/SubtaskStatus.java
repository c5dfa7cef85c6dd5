package io.sluice.protocol;

import io.sluice.job.ExecutionState;

/**
 * One subtask of a vertex in the job master's current deployment, as shown in job details.
 *
 * @param state                   as the job master last heard it from the task (DEPLOYING until the task reports)
 * @param awaitingFinalCheckpoint whether the (RUNNING) task's input ended and it waits for a checkpoint
 *                                to complete before it finishes (a two-phase-commit sink commits its last
 *                                output then)
 */
public record SubtaskStatus(int subtaskIndex, ExecutionState state, boolean awaitingFinalCheckpoint, long recordsIn,
                            long recordsOut) implements java.io.Serializable {
}
