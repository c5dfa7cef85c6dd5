package io.sluice.taskexecutor;

/** Counters of one task, read without synchronisation (may be slightly stale). */
public record TaskMetrics(ExecutionAttemptId attemptId, ExecutionState state, long recordsIn, long recordsOut) {
}
