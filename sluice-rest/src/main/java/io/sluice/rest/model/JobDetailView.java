package io.sluice.rest.model;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.protocol.FailureEvent;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.protocol.SubtaskStatus;
import io.sluice.protocol.VertexStatus;
import java.util.List;

/**
 * {@code GET /v1/jobs/{jobId}}: a job's status and progress. Built from {@link JobDetails}; field
 * names and meaning are the REST API's contract (see docs/rest.md), independent of the runtime record.
 *
 * @param failure  the root cause of the last failure, or {@code null}
 * @param recovery while INITIALIZING, what recovery is doing; after it, how the latest recovery went; else {@code null}
 * @param crashLoop the crash loop the job is in, or {@code null}
 * @param checkpointsStale the latest checkpoint is older than {@code checkpoints.stale-after}, or {@code null}
 */
public record JobDetailView(String id, String name, String status, List<Transition> transitions, List<Vertex> vertices,
                            Restarts restarts, Failure failure, Recovery recovery, CheckpointSummary checkpoints,
                            List<Edge> edges, JobHealthView.CrashLoopView crashLoop,
                            JobHealthView.StaleCheckpointsView checkpointsStale) {

    /** Without edges ({@code null}: the graph is not available, e.g. for an ended job). */
    public JobDetailView(String id, String name, String status, List<Transition> transitions, List<Vertex> vertices,
                         Restarts restarts, Failure failure, Recovery recovery, CheckpointSummary checkpoints,
                         JobHealthView.CrashLoopView crashLoop, JobHealthView.StaleCheckpointsView checkpointsStale) {
        this(id, name, status, transitions, vertices, restarts, failure, recovery, checkpoints, null, crashLoop,
                checkpointsStale);
    }

    /**
     * One edge of the operator graph, from the vertex {@code source} to {@code target}.
     *
     * @param partitioning FORWARD, REBALANCE or HASH
     */
    public record Edge(int source, int target, String partitioning) {
    }

    /** This view with the edges of {@code graph}, or unchanged when there is none. */
    public JobDetailView withEdges(java.util.Optional<io.sluice.graph.JobGraph> graph) {
        if (graph.isEmpty()) {
            return this;
        }
        List<Edge> e = graph.get().edges().stream()
                .map(x -> new Edge(x.sourceVertexId(), x.targetVertexId(), x.partitioning().name())).toList();
        return new JobDetailView(id, name, status, transitions, vertices, restarts, failure, recovery, checkpoints, e,
                crashLoop, checkpointsStale);
    }

    public record Transition(String status, long timestampMillis) {
        static Transition of(JobStatusTransition t) {
            return new Transition(t.status().name(), t.timestampMillis());
        }
    }

    /**
     * @param subtasks           per subtask of the current deployment: its state and record counts
     * @param lateRecordsDropped records the vertex's windows dropped as too late, over its current subtasks
     * @param commits            its two-phase-commit sinks' commits over its current subtasks; null if it has none
     * @param source             whether it starts with a source: its {@code recordsIn} are what its readers emitted
     */
    public record Vertex(int id, String name, int parallelism, int runningSubtasks, long recordsIn, long recordsOut,
                         List<Subtask> subtasks, long lateRecordsDropped, SinkCommits commits, boolean source) {
        static Vertex of(VertexStatus v) {
            return new Vertex(v.vertexId(), v.name(), v.parallelism(), v.runningSubtasks(), v.recordsIn(), v.recordsOut(),
                    v.subtasks().stream().map(Subtask::of).toList(), v.lateRecordsDropped(),
                    v.commits() == null ? null : SinkCommits.of(v.commits()), v.source());
        }
    }

    /**
     * @param pendingCommittables    pre-committed output not yet committed (waiting for its checkpoint, or retried)
     * @param oldestPendingAgeMillis how long the oldest of it has waited
     * @param commitRetries          failed commit attempts, each retried with backoff
     * @param committed              committables committed by the current subtasks
     * @param lastCommitError        the latest failed attempt while not yet retried successfully; null if none
     */
    public record SinkCommits(long pendingCommittables, long oldestPendingAgeMillis, long commitRetries, long committed,
                              String lastCommitError) {
        static SinkCommits of(io.sluice.operators.CommitStats c) {
            return new SinkCommits(c.pendingCommittables(), c.oldestPendingAgeMillis(), c.commitRetries(), c.committed(),
                    c.lastCommitError());
        }
    }

    /**
     * @param state                   DEPLOYING, RUNNING, FINISHED, CANCELING, CANCELED or FAILED
     * @param awaitingFinalCheckpoint a RUNNING subtask whose input ended waits for a checkpoint before it finishes
     */
    public record Subtask(int index, String state, boolean awaitingFinalCheckpoint, long recordsIn, long recordsOut) {
        static Subtask of(SubtaskStatus s) {
            return new Subtask(s.subtaskIndex(), s.state().name(), s.awaitingFinalCheckpoint(), s.recordsIn(),
                    s.recordsOut());
        }
    }

    /** @param recent the latest restarts, oldest first, with the failure that caused each */
    public record Restarts(int count, List<Restart> recent) {
    }

    public record Restart(long timestampMillis, String cause) {
    }

    public record Failure(String message) {
    }

    public record Recovery(String phase, int attempt, int pointersFound, int metadataLoaded, long elapsedMillis,
                           String lastError, long nextRetryMillis, List<String> events) {
        static Recovery of(RecoveryStatus r) {
            return r == null ? null : new Recovery(r.phase(), r.attempt(), r.pointersFound(), r.metadataLoaded(),
                    r.elapsedMillis(), r.lastError(), r.nextRetryMillis(), r.events());
        }
    }

    /**
     * @param latestId           -1 when none completed
     * @param failingSinceMillis when the current run of consecutive checkpoint failures began, or {@code null}
     */
    public record CheckpointSummary(long completed, long failed, long latestId, String lastFailure, Long failingSinceMillis) {
        static CheckpointSummary of(CheckpointStats c) {
            return new CheckpointSummary(c.completed(), c.failed(), c.latestCompletedId(), c.lastFailure(),
                    c.failingSinceMillis() < 0 ? null : c.failingSinceMillis());
        }
    }

    public static JobDetailView of(JobDetails d) {
        return new JobDetailView(d.jobId().value(), d.name(), d.status().name(),
                d.transitions().stream().map(Transition::of).toList(),
                d.vertices().stream().map(Vertex::of).toList(),
                new Restarts(d.restarts(), d.recentFailures().stream().filter(FailureEvent::restarted)
                        .map(f -> new Restart(f.timestampMillis(), f.cause())).toList()),
                d.failureMessage() == null ? null : new Failure(d.failureMessage()),
                Recovery.of(d.recovery()),
                CheckpointSummary.of(d.checkpoints()),
                JobHealthView.CrashLoopView.of(d.health().crashLoop()),
                JobHealthView.StaleCheckpointsView.of(d.health()));
    }
}
