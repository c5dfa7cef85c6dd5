package io.sluice.protocol;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;

/** A task's report of a state change to its job master; {@code failure} is set for FAILED. */
public record TaskExecutionState(ExecutionAttemptId attemptId, ExecutionState state, Throwable failure) implements java.io.Serializable {
}
