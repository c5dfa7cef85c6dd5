package io.sluice.protocol;

import java.util.List;

/**
 * Per-vertex progress shown in job details. Record counts are sums over the vertex's current subtasks.
 *
 * @param subtasks           each subtask of the current deployment, by index; empty before the first deployment
 * @param lateRecordsDropped records the vertex's window operators dropped as later than their allowed lateness
 *                           (windows without a late-data side output), summed over the current subtasks
 * @param commits            the commits of the vertex's two-phase-commit sinks over its current subtasks
 *                           (pending committables, the oldest one's age, retries), or {@code null} if it has none
 * @param source             whether the vertex starts with a source (reads no channel): its {@code recordsIn} are
 *                           the records its source readers emitted, the job's input
 */
public record VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks,
                           long recordsIn, long recordsOut, List<SubtaskStatus> subtasks, long lateRecordsDropped,
                           io.sluice.operators.CommitStats commits, boolean source)
        implements java.io.Serializable {
    public VertexStatus {
        subtasks = List.copyOf(subtasks);
    }

    /** Not a source. */
    public VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks, long recordsIn, long recordsOut,
                        List<SubtaskStatus> subtasks, long lateRecordsDropped, io.sluice.operators.CommitStats commits) {
        this(vertexId, name, parallelism, runningSubtasks, recordsIn, recordsOut, subtasks, lateRecordsDropped, commits,
                false);
    }

    /** Without two-phase-commit sinks. */
    public VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks, long recordsIn, long recordsOut,
                        List<SubtaskStatus> subtasks, long lateRecordsDropped) {
        this(vertexId, name, parallelism, runningSubtasks, recordsIn, recordsOut, subtasks, lateRecordsDropped, null);
    }

    /** Without dropped late records (a vertex without windows). */
    public VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks, long recordsIn, long recordsOut,
                        List<SubtaskStatus> subtasks) {
        this(vertexId, name, parallelism, runningSubtasks, recordsIn, recordsOut, subtasks, 0);
    }

    /** Without per-subtask status. */
    public VertexStatus(int vertexId, String name, int parallelism, int runningSubtasks, long recordsIn, long recordsOut) {
        this(vertexId, name, parallelism, runningSubtasks, recordsIn, recordsOut, List.of());
    }
}
