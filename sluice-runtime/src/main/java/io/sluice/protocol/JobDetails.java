package io.sluice.protocol;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.restart.RestartHistory;
import java.util.List;

/**
 * A job's status as answered by the Dispatcher.
 *
 * @param recovery        progress of leadership recovery while INITIALIZING, else {@code null}
 * @param failureMessage  root cause of the last failure (kept through restarts), or {@code null}
 * @param restartHistory  restarts in the last 10 minutes and the latest causes, so a crash loop is visible
 * @param recentFailures  the latest task failures under the current job master, oldest first, at most
 *                        {@link #RECENT_FAILURES_LIMIT}, each saying whether it restarted the job
 * @param health          a crash loop, checkpoints older than the threshold ({@link JobHealth#NONE} when neither)
 */
public record JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                         List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                         String failureMessage, RecoveryStatus recovery, RestartHistory restartHistory,
                         List<FailureEvent> recentFailures, JobHealth health) implements java.io.Serializable {
    /** How many failures {@link #recentFailures} keeps. */
    public static final int RECENT_FAILURES_LIMIT = 16;

    public JobDetails {
        restartHistory = restartHistory == null ? RestartHistory.NONE : restartHistory;
        transitions = List.copyOf(transitions);
        vertices = List.copyOf(vertices);
        recentFailures = recentFailures == null ? List.of() : List.copyOf(recentFailures);
        health = health == null ? JobHealth.NONE : health;
    }

    /** Details without a health mark. */
    public JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                      List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                      String failureMessage, RecoveryStatus recovery, RestartHistory restartHistory,
                      List<FailureEvent> recentFailures) {
        this(jobId, name, status, transitions, vertices, checkpoints, restarts, failureMessage, recovery,
                restartHistory, recentFailures, JobHealth.NONE);
    }

    /** The same details with {@code health}. */
    public JobDetails withHealth(JobHealth health) {
        return new JobDetails(jobId, name, status, transitions, vertices, checkpoints, restarts, failureMessage,
                recovery, restartHistory, recentFailures, health);
    }

    /** Details without a restart history or recent failures (none recorded). */
    public JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                      List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                      String failureMessage, RecoveryStatus recovery) {
        this(jobId, name, status, transitions, vertices, checkpoints, restarts, failureMessage, recovery,
                RestartHistory.NONE, List.of());
    }

    /** Details without recent failures. */
    public JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                      List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                      String failureMessage, RecoveryStatus recovery, RestartHistory restartHistory) {
        this(jobId, name, status, transitions, vertices, checkpoints, restarts, failureMessage, recovery,
                restartHistory, List.of());
    }

    /** Details without a restart history. */
    public JobDetails(JobId jobId, String name, JobStatus status, List<JobStatusTransition> transitions,
                      List<VertexStatus> vertices, CheckpointStats checkpoints, int restarts,
                      String failureMessage, RecoveryStatus recovery, List<FailureEvent> recentFailures) {
        this(jobId, name, status, transitions, vertices, checkpoints, restarts, failureMessage, recovery,
                RestartHistory.NONE, recentFailures);
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
