package io.sluice.taskexecutor;

import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;

/**
 * Everything a task executor needs to run one subtask.
 *
 * @param attemptNumber how many times the job has restarted before this deployment (for user code)
 * @param restore       the state to restore, or {@code null} to start from scratch
 */
public record TaskDeploymentDescriptor(JobGraph jobGraph, ExecutionAttemptId attemptId, int attemptNumber,
                                       TaskRestore restore) implements java.io.Serializable {
    public JobVertex vertex() {
        return jobGraph.vertex(attemptId.vertexId());
    }

    public int subtaskIndex() {
        return attemptId.subtaskIndex();
    }
}
