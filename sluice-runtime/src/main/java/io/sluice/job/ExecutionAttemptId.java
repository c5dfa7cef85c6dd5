package io.sluice.job;

import io.sluice.graph.JobId;

/**
 * Identifies one deployment of one subtask. Every deployment round of a job gets a fresh
 * {@code deployment} number (unique in the job manager's JVM, across its job masters), so messages
 * from tasks of an earlier round are recognised as stale and ignored, and their data channels never
 * mix with the new round's. A job manager in another process (a new leader) numbers from 1 again:
 * task executors forget the old leader's channels before they register with it
 * ({@link io.sluice.network.ShuffleEnvironment#forgetAllDeployments}).
 */
public record ExecutionAttemptId(JobId jobId, int vertexId, int subtaskIndex, int deployment) implements java.io.Serializable {
    @Override
    public String toString() {
        return "v" + vertexId + "#" + subtaskIndex + "@" + deployment;
    }
}
