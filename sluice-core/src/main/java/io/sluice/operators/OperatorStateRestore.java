package io.sluice.operators;

import java.util.List;

/**
 * The operator state a subtask restores: what {@link StreamOperator#snapshotState} returned in
 * checkpoint {@code checkpointId}, for this subtask and, after the parallelism was lowered, for the
 * subtasks that no longer exist and were assigned to it (subtask {@code s} of the old parallelism goes
 * to {@code s % parallelism}). Immutable; the arrays must not be modified.
 *
 * @param checkpointId the restored checkpoint
 * @param states       one entry per contributing old subtask (its own first); never empty
 */
public record OperatorStateRestore(long checkpointId, List<byte[]> states) {
    public OperatorStateRestore {
        states = List.copyOf(states);
    }
}
