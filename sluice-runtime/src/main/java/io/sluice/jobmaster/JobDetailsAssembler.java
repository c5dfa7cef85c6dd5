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
 * <p>Threading: the job master's main thread only (its parts check it).
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
        DeploymentRound current = round.get();
        List<VertexStatus> vertices = new ArrayList<>();
        for (JobVertex v : jobGraph.vertices()) {
            vertices.add(vertexStatus(v, current, metrics));
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

    private static VertexStatus vertexStatus(JobVertex v, DeploymentRound current, List<TaskMetrics> metrics) {
        long in = 0;
        long out = 0;
        long lateDropped = 0;
        io.sluice.operators.CommitStats commits = null;
        int running = 0;
        long[] subtaskIn = new long[v.parallelism()];
        long[] subtaskOut = new long[v.parallelism()];
        for (TaskMetrics m : metrics) {
            if (m.attemptId().vertexId() != v.id() || m.attemptId().deployment() != current.number()) {
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
        List<SubtaskStatus> subtasks = new ArrayList<>();
        for (Execution e : current.executions()) {
            if (e.id().vertexId() == v.id()) {
                int i = e.id().subtaskIndex();
                subtasks.add(new SubtaskStatus(i, e.state(), subtaskIn[i], subtaskOut[i]));
            }
        }
        subtasks.sort(Comparator.comparingInt(SubtaskStatus::subtaskIndex));
        return new VertexStatus(v.id(), v.name(), v.parallelism(), running, in, out, subtasks, lateDropped, commits);
    }
}
