package io.sluice.jobmaster;

import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.deployment.DeploymentRound;
import io.sluice.jobmaster.deployment.Execution;
import io.sluice.jobmaster.deployment.SlotAssignment;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.protocol.RecoveryStatus;
import io.sluice.protocol.SubtaskStatus;
import io.sluice.protocol.TaskMetrics;
import io.sluice.protocol.VertexStatus;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Puts a job's {@link JobDetails} together from its parts: status and transitions, each vertex's
 * subtasks as the job master last heard of them with the counters of the current round's tasks,
 * checkpoint statistics, restarts and failures, health, and what the job waits for while it has
 * too few slots.
 *
 * <p>Threading: the job master's main thread only (its parts check it), except {@link
 * #withCounters}, a pure function.
 */
final class JobDetailsAssembler {
    private final JobGraph jobGraph;
    private final Supplier<JobStatus> status;
    private final Supplier<List<JobStatusTransition>> transitions;
    private final Supplier<DeploymentRound> round;
    private final SlotAssignment slots;
    private final CheckpointCoordinator checkpoints;
    private final JobFailures failures;
    private final JobHealthMonitor healthMonitor;

    JobDetailsAssembler(JobGraph jobGraph, Supplier<JobStatus> status, Supplier<List<JobStatusTransition>> transitions,
                        Supplier<DeploymentRound> round, SlotAssignment slots, CheckpointCoordinator checkpoints,
                        JobFailures failures, JobHealthMonitor healthMonitor) {
        this.jobGraph = jobGraph;
        this.status = status;
        this.transitions = transitions;
        this.round = round;
        this.slots = slots;
        this.checkpoints = checkpoints;
        this.failures = failures;
        this.healthMonitor = healthMonitor;
    }

    /** The details now, with {@code metrics} (task counters; those of other rounds are left out). */
    JobDetails build(List<TaskMetrics> metrics) {
        return withCounters(base(), round.get().number(), metrics);
    }

    /**
     * The details of a job master that has not run a command yet (made on its runner's thread, its start
     * queued): {@code created}, the graph's vertices with no subtask deployed, no checkpoint stats yet.
     * Any thread (reads only the graph and its arguments).
     */
    JobDetails beforeStart(JobStatusTransition created) {
        List<VertexStatus> vertices = new ArrayList<>();
        for (JobVertex v : jobGraph.vertices()) {
            vertices.add(new VertexStatus(v.id(), v.name(), v.parallelism(), 0, 0, 0, List.of(), 0, null, v.isSource()));
        }
        return new JobDetails(jobGraph.jobId(), jobGraph.name(), created.status(), List.of(created), vertices,
                io.sluice.checkpoint.CheckpointStats.NONE, 0, null, null);
    }

    /** The number of the current deployment round (whose task counters count). */
    int roundNumber() {
        return round.get().number();
    }

    /** The details now without task counters: each subtask's state as last heard, every count 0. */
    JobDetails base() {
        DeploymentRound current = round.get();
        List<VertexStatus> vertices = new ArrayList<>();
        for (JobVertex v : jobGraph.vertices()) {
            List<SubtaskStatus> subtasks = new ArrayList<>();
            for (Execution e : current.executions()) {
                if (e.id().vertexId() == v.id()) {
                    subtasks.add(new SubtaskStatus(e.id().subtaskIndex(), e.state(), e.isAwaitingFinalCheckpoint(), 0, 0));
                }
            }
            subtasks.sort(Comparator.comparingInt(SubtaskStatus::subtaskIndex));
            vertices.add(new VertexStatus(v.id(), v.name(), v.parallelism(), 0, 0, 0, subtasks, 0, null, v.isSource()));
        }
        String waitingFor = slots.waitingFor();
        RecoveryStatus waiting = waitingFor == null ? null
                : new RecoveryStatus(waitingFor, 0, -1, 0, 0, null, 0, List.of());
        Throwable lastFailure = failures.lastFailure();
        JobStatus now = status.get();
        return new JobDetails(jobGraph.jobId(), jobGraph.name(), now, transitions.get(), vertices,
                checkpoints.stats(), failures.restarts(), lastFailure == null ? null : JobResult.describe(lastFailure),
                waiting, failures.restartHistory(), failures.recentEvents(), healthMonitor.health(now));
    }

    /**
     * {@code base} (see {@link #base()}) with the counters of {@code metrics} that belong to deployment
     * round {@code round}. A pure function: any thread.
     */
    static JobDetails withCounters(JobDetails base, int round, List<TaskMetrics> metrics) {
        if (metrics.isEmpty()) {
            return base;
        }
        List<VertexStatus> vertices = new ArrayList<>(base.vertices().size());
        for (VertexStatus v : base.vertices()) {
            vertices.add(vertexStatus(v, round, metrics));
        }
        return new JobDetails(base.jobId(), base.name(), base.status(), base.transitions(), vertices,
                base.checkpoints(), base.restarts(), base.failureMessage(), base.recovery(), base.restartHistory(),
                base.recentFailures(), base.health());
    }

    private static VertexStatus vertexStatus(VertexStatus v, int round, List<TaskMetrics> metrics) {
        long in = 0;
        long out = 0;
        long lateDropped = 0;
        io.sluice.operators.CommitStats commits = null;
        int running = 0;
        long[] subtaskIn = new long[v.parallelism()];
        long[] subtaskOut = new long[v.parallelism()];
        for (TaskMetrics m : metrics) {
            if (m.attemptId().vertexId() != v.vertexId() || m.attemptId().deployment() != round) {
                continue;
            }
            in += m.recordsIn();
            out += m.recordsOut();
            lateDropped += m.lateRecordsDropped();
            if (m.commits() != null) {
                commits = commits == null ? m.commits() : commits.plus(m.commits());
            }
            if (m.state() == ExecutionState.RUNNING) {
                running++;
            }
            if (m.attemptId().subtaskIndex() < v.parallelism()) {
                subtaskIn[m.attemptId().subtaskIndex()] += m.recordsIn();
                subtaskOut[m.attemptId().subtaskIndex()] += m.recordsOut();
            }
        }
        List<SubtaskStatus> subtasks = new ArrayList<>(v.subtasks().size());
        for (SubtaskStatus s : v.subtasks()) {
            int i = s.subtaskIndex();
            subtasks.add(new SubtaskStatus(i, s.state(), s.awaitingFinalCheckpoint(), subtaskIn[i], subtaskOut[i]));
        }
        return new VertexStatus(v.vertexId(), v.name(), v.parallelism(), running, in, out, subtasks, lateDropped,
                commits, v.source());
    }
}
