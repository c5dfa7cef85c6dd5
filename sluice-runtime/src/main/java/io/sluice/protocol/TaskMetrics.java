package io.sluice.protocol;

import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;

/**
 * Counters of one task, read without synchronisation (may be slightly stale).
 *
 * @param lateRecordsDropped records its window operators dropped as later than their allowed lateness
 *                           (those without a late-data side output)
 * @param commits            the commits of its two-phase-commit sinks, or {@code null} if it has none
 */
public record TaskMetrics(ExecutionAttemptId attemptId, ExecutionState state, long recordsIn, long recordsOut,
                          long lateRecordsDropped, io.sluice.operators.CommitStats commits) implements java.io.Serializable {
    public TaskMetrics(ExecutionAttemptId attemptId, ExecutionState state, long recordsIn, long recordsOut,
                       long lateRecordsDropped) {
        this(attemptId, state, recordsIn, recordsOut, lateRecordsDropped, null);
    }

    public TaskMetrics(ExecutionAttemptId attemptId, ExecutionState state, long recordsIn, long recordsOut) {
        this(attemptId, state, recordsIn, recordsOut, 0);
    }
}
