package io.sluice.jobmaster;

/** Per-vertex progress shown in job details. Record counts are sums over the vertex's current subtasks. */
public record VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks,
                           long recordsIn, long recordsOut) {
}
