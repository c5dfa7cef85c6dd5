package io.sluice.jobmaster.deployment;

import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.protocol.JobMasterGateway;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskExecutionState;
import io.sluice.protocol.TaskExecutorGateway;
import io.sluice.rpc.MainThreadExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deployment rounds of one job: deploys every subtask to its slot ({@link SlotAssignment}),
 * restoring from the latest completed checkpoint held in memory by the store (no storage read of
 * metadata; tasks read only their own state files), cancels a round's tasks, and releases its data
 * channels once they have ended. Each round gets a JVM-unique number, so that reports from an
 * earlier round are ignored.
 *
 * <p>The checkpoint a round restores from stays pinned in the {@link CheckpointCoordinator} until
 * no task of the round may still read it ({@link #restoreEnded}), so that a checkpoint completing
 * meanwhile does not discard the files the new tasks are reading.
 *
 * <p>Threading: the job master's main thread only; every method checks it. A failed submission
 * comes back there as the task's FAILED report ({@code onSubmitFailed}).
 */
public final class TaskDeployer {
    private static final Logger LOG = LoggerFactory.getLogger(TaskDeployer.class);
    /** Round numbers, unique in this JVM (task executors of a local cluster are shared by jobs). */
    private static final AtomicInteger ROUNDS = new AtomicInteger();

    private final JobGraph jobGraph;
    private final SlotAssignment slots;
    private final CompletedCheckpointStore store;
    private final CheckpointCoordinator checkpoints;
    private final MainThreadExecutor mainThread;
    private final JobMasterGateway jobMaster;
    private final IntSupplier attemptNumber;
    private final IntConsumer releaseShuffle;
    private final Consumer<TaskExecutionState> onSubmitFailed;
    private DeploymentRound current = DeploymentRound.none();

    /**
     * @param jobMaster      the gateway the deployed tasks report to
     * @param attemptNumber  the attempt number of the next round's tasks (the job's restarts so far)
     * @param releaseShuffle releases the in-memory channels of a round (its number) once its tasks ended
     * @param onSubmitFailed told of a task whose submission failed, as its FAILED report, on the main thread
     */
    public TaskDeployer(JobGraph jobGraph, SlotAssignment slots, CompletedCheckpointStore store,
                        CheckpointCoordinator checkpoints, MainThreadExecutor mainThread, JobMasterGateway jobMaster,
                        IntSupplier attemptNumber, IntConsumer releaseShuffle,
                        Consumer<TaskExecutionState> onSubmitFailed) {
        this.jobGraph = jobGraph;
        this.slots = slots;
        this.store = store;
        this.checkpoints = checkpoints;
        this.mainThread = mainThread;
        this.jobMaster = jobMaster;
        this.attemptNumber = attemptNumber;
        this.releaseShuffle = releaseShuffle;
        this.onSubmitFailed = onSubmitFailed;
    }

    /** The current round ({@link DeploymentRound#none()} before the first deployment). */
    public DeploymentRound current() {
        mainThread.assertRunningInMainThread();
        return current;
    }

    /** Starts a new round: every subtask to its slot, restoring from the latest completed checkpoint. */
    public void deployAll() {
        mainThread.assertRunningInMainThread();
        Optional<CompletedCheckpoint> latest = store.latest();
        long restoreId = latest.map(CompletedCheckpoint::checkpointId).orElse(-1L);
        current = new DeploymentRound(ROUNDS.incrementAndGet(), restoreId);
        if (latest.isPresent()) {
            LOG.info("Job {}: restoring from checkpoint {} (in memory)", jobGraph.jobId(), latest.get().checkpointId());
            checkpoints.restoreStarting(latest.get().checkpointId());
        } else {
            checkpoints.restoreFinished();
        }
        for (TaskDeploymentDescriptor descriptor : descriptors(latest)) {
            submit(descriptor);
        }
    }

    /** The descriptors of the new round, whose executions it adds to {@link #current}. */
    private List<TaskDeploymentDescriptor> descriptors(Optional<CompletedCheckpoint> latest) {
        List<TaskExecutorGateway> assigned = slots.slots();
        List<String> dataAddresses = new ArrayList<>();
        for (TaskExecutorGateway te : assigned) {
            dataAddresses.add(te.dataAddress()); // a constant of the gateway: no call to the task executor
        }
        List<TaskDeploymentDescriptor> descriptors = new ArrayList<>();
        for (JobVertex vertex : jobGraph.vertices()) {
            for (int subtask = 0; subtask < vertex.parallelism(); subtask++) {
                ExecutionAttemptId id =
                        new ExecutionAttemptId(jobGraph.jobId(), vertex.id(), subtask, current.number());
                current.add(new Execution(id, assigned.get(subtask), vertex.isSource(), latest.isPresent()));
                int index = subtask;
                descriptors.add(new TaskDeploymentDescriptor(jobGraph, id, attemptNumber.getAsInt(),
                        latest.map(cp -> TaskRestores.forSubtask(cp, vertex, index)).orElse(null), dataAddresses));
            }
        }
        return descriptors;
    }

    private void submit(TaskDeploymentDescriptor d) {
        Execution e = current.get(d.attemptId());
        e.taskExecutor().submitTask(d, jobMaster).whenCompleteAsync((ack, error) -> {
            if (error != null && current.get(d.attemptId()) == e && !e.state().isTerminal()) {
                onSubmitFailed.accept(new TaskExecutionState(d.attemptId(), ExecutionState.FAILED,
                        new IllegalStateException("Could not deploy " + d.attemptId() + " to task executor "
                                + e.taskExecutor().id(), error)));
            }
        }, mainThread);
    }

    /** Asks every task of the current round that has not ended to cancel. */
    public void cancelAll() {
        mainThread.assertRunningInMainThread();
        current.cancelAll();
    }

    /**
     * A task of the current round stopped restoring (it runs, ended, or was lost): once none may
     * still read the restore checkpoint, its pin in the coordinator goes.
     */
    public void restoreEnded() {
        mainThread.assertRunningInMainThread();
        if (!current.anyRestoring()) {
            checkpoints.restoreFinished();
        }
    }

    /** Every task of the current round has ended: its data channels go, in memory and on every task executor. */
    public void release() {
        mainThread.assertRunningInMainThread();
        if (current.number() < 0) {
            return;
        }
        releaseShuffle.accept(current.number());
        // Task executors that exchange data over the network hold their own channel ends.
        for (TaskExecutorGateway te : slots.distinctTaskExecutors()) {
            if (te.dataAddress() != null) {
                te.releaseChannels(jobGraph.jobId(), current.number());
            }
        }
    }
}
