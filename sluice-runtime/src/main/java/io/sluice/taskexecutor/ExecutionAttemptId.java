package io.sluice.taskexecutor;

import io.sluice.graph.JobId;

/**
 * Identifies one deployment of one subtask. Every deployment round of a job gets a fresh
 * {@code deployment} number (unique in the JVM, across job managers), so messages from tasks of an
 * earlier round are recognised as stale and ignored, and their data channels never mix with the
 * new round's.
 */
public record ExecutionAttemptId(JobId jobId, int vertexId, int subtaskIndex, int deployment) implements java.io.Serializable {
    @Override
    public String toString() {
        return "v" + vertexId + "#" + subtaskIndex + "@" + deployment;
    }
}
