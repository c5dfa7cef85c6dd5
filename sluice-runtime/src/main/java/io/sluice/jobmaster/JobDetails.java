package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.graph.JobId;
import java.util.List;

/**
 * A job's status as answered by the Dispatcher.
 *
 * @param recovery        progress of leadership recovery while INITIALIZING, else {@code null}
 * @param failureMessage  root cause of the last failure (kept through restarts), or {@code null}
 */
public record JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                         List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                         String failureMessage, RecoveryStatus recovery) {
    public JobDetails {
        transitions = List.copyOf(transitions);
        vertices = List.copyOf(vertices);
    }

    /** Records emitted by all sources. */
    public long sourceRecords(java.util.function.IntPredicate isSourceVertex) {
        return vertices.stream().filter(v -> isSourceVertex.test(v.vertexId())).mapToLong(VertexStatus::recordsOut).sum();
    }

    public long transitionTime(JobStatus s) {
        for (int i = transitions.size() - 1; i >= 0; i--) {
            if (transitions.get(i).status() == s) {
                return transitions.get(i).timestampMillis();
            }
        }
        return -1;
    }
}
