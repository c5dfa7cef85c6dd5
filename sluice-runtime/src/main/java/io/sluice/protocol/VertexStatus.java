package io.sluice.protocol;

import java.util.List;

/**
 * Per-vertex progress shown in job details. Record counts are sums over the vertex's current subtasks.
 *
 * @param subtasks each subtask of the current deployment, by index; empty before the first deployment
 */
public record VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks,
                           long recordsIn, long recordsOut, List<SubtaskStatus> subtasks) implements java.io.Serializable {
    public VertexStatus {
        subtasks = List.copyOf(subtasks);
    }

    /** Without per-subtask status. */
    public VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks, long recordsIn, long recordsOut) {
        this(vertexId, name, parallelism, runningSubtasks, recordsIn, recordsOut, List.of());
    }
}
