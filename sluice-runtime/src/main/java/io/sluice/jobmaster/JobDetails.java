package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.graph.JobId;
import java.util.List;

/**
 * A job's status as answered by the Dispatcher.
 *
 * @param recovery        progress of leadership recovery while INITIALIZING, else {@code null}
 * @param failureMessage  root cause of the last failure (kept through restarts), or {@code null}
 * @param recentFailures  the latest task failures under the current job master, oldest first, at most
 *                        {@link #RECENT_FAILURES_LIMIT}
 */
public record JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                         List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                         String failureMessage, RecoveryStatus recovery, List<FailureEvent> recentFailures) {
    /** How many failures {@link #recentFailures} keeps. */
    public static final int RECENT_FAILURES_LIMIT = 16;

    public JobDetails {
        transitions = List.copyOf(transitions);
        vertices = List.copyOf(vertices);
        recentFailures = List.copyOf(recentFailures);
    }

    /** Without recent failures. */
    public JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                      List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                      String failureMessage, RecoveryStatus recovery) {
        this(jobId, name, status, transitions, vertices, checkpoints, restarts, failureMessage, recovery, List.of());
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
