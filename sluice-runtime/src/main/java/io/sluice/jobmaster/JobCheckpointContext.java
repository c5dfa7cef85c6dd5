package io.sluice.jobmaster;

import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.job.ExecutionAttemptId;
import io.sluice.job.ExecutionState;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.deployment.DeploymentRound;
import io.sluice.jobmaster.deployment.Execution;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The job master as its {@link CheckpointCoordinator} sees it: checkpoints start only while the
 * job runs and every task of the current round runs or has finished (with a source still running
 * to inject the barriers, or a task awaiting its final checkpoint); triggers go to the running
 * sources and the tasks awaiting their final checkpoint; every task that has not finished
 * acknowledges; too many task-caused checkpoint failures fail the job over.
 *
 * <p>Completion notifications ({@link #notifyTaskCheckpointComplete}) reach a task only while it
 * runs in the current round: the one path by which a task learns that a checkpoint is durable and
 * may commit what it holds for it (for example a two-phase-commit sink).
 *
 * <p>Threading: the job master's main thread (the coordinator calls it only there).
 */
final class JobCheckpointContext implements CheckpointCoordinator.Context {
    private final Supplier<JobStatus> status;
    private final Supplier<DeploymentRound> round;
    private final Consumer<Throwable> failJob;

    /**
     * @param failJob fails the job over, if it runs (a global failure of its lifecycle)
     */
    JobCheckpointContext(Supplier<JobStatus> status, Supplier<DeploymentRound> round, Consumer<Throwable> failJob) {
        this.status = status;
        this.round = round;
        this.failJob = failJob;
    }

    @Override
    public boolean canTriggerCheckpoint() {
        return status.get() == JobStatus.RUNNING && round.get().readyForCheckpoint();
    }

    @Override
    public List<ExecutionAttemptId> tasksToTrigger() {
        return round.get().runningSources();
    }

    @Override
    public List<ExecutionAttemptId> tasksAwaitingFinalCheckpoint() {
        return round.get().awaitingFinalCheckpoint();
    }

    @Override
    public List<ExecutionAttemptId> tasksToAcknowledge() {
        return round.get().notFinished();
    }

    @Override
    public List<TaskStateHandle> finishedTaskStates() {
        return round.get().finishedStates();
    }

    @Override
    public void triggerTask(ExecutionAttemptId task, long checkpointId, long timestampMillis) {
        round.get().get(task).taskExecutor().triggerCheckpoint(task, checkpointId, timestampMillis);
    }

    @Override
    public void triggerTaskForSavepoint(ExecutionAttemptId task, long checkpointId, long timestampMillis,
                                        boolean stop) {
        round.get().get(task).taskExecutor().triggerSavepoint(task, checkpointId, timestampMillis, stop);
    }

    @Override
    public void notifyTaskCheckpointComplete(ExecutionAttemptId task, long checkpointId) {
        Execution e = round.get().get(task);
        if (e != null && e.state() == ExecutionState.RUNNING) {
            e.taskExecutor().notifyCheckpointComplete(task, checkpointId);
        }
    }

    @Override
    public void failJob(Throwable cause) {
        failJob.accept(cause);
    }
}
