package io.sluice.protocol;

import io.sluice.job.ExecutionState;

/**
 * One subtask of a vertex in the job master's current deployment, as shown in job details.
 *
 * @param state as the job master last heard it from the task (DEPLOYING until the task reports)
 */
public record SubtaskStatus(int subtaskIndex, ExecutionState state, long recordsIn, long recordsOut) implements java.io.Serializable {
}
