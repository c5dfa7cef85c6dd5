package io.sluice.jobmaster;

import io.sluice.checkpoint.CheckpointException;
import io.sluice.checkpoint.coordinator.CheckpointCoordinator;
import io.sluice.graph.JobGraph;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.deployment.SlotAssignment;
import io.sluice.jobmaster.deployment.TaskDeployer;
import io.sluice.jobmaster.lifecycle.FailoverDecision;
import io.sluice.jobmaster.lifecycle.JobActions;
import io.sluice.jobmaster.lifecycle.TaskFailure;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The job master's parts as its lifecycle states see them ({@link JobActions}): each action is
 * one call into the part that owns it.
 *
 * <p>Threading: the job master's main thread (the parts check it).
 */
final class JobMasterActions implements JobActions {
    private final JobGraph jobGraph;
    private final Clock clock;
    private final SlotAssignment slots;
    private final TaskDeployer deployer;
    private final CheckpointCoordinator checkpoints;
    private final FailoverPolicy failover;
    private final RestoreFallback restoreFallback;
    private final JobHealthMonitor healthMonitor;
    private final JobFailures failures;
    private final JobDetailsRequests details;
    private final CompletableFuture<JobResult> result;
    /** Tells the job master of lost task executors and added slots (task executor id and reason; no arguments). */
    private final BiConsumer<String, String> onTaskExecutorLost;
    private final Runnable onSlotsAdded;

    JobMasterActions(JobGraph jobGraph, Clock clock, SlotAssignment slots, TaskDeployer deployer,
                     CheckpointCoordinator checkpoints, FailoverPolicy failover, RestoreFallback restoreFallback,
                     JobHealthMonitor healthMonitor, JobFailures failures, JobDetailsRequests details,
                     CompletableFuture<JobResult> result, BiConsumer<String, String> onTaskExecutorLost,
                     Runnable onSlotsAdded) {
        this.jobGraph = jobGraph;
        this.clock = clock;
        this.slots = slots;
        this.deployer = deployer;
        this.checkpoints = checkpoints;
        this.failover = failover;
        this.restoreFallback = restoreFallback;
        this.healthMonitor = healthMonitor;
        this.failures = failures;
        this.details = details;
        this.result = result;
        this.onTaskExecutorLost = onTaskExecutorLost;
        this.onSlotsAdded = onSlotsAdded;
    }

    @Override
    public void listenToSlotPool() {
        slots.listen(onTaskExecutorLost, onSlotsAdded);
    }

    @Override
    public boolean tryAllocateSlots(JobStatus waitingIn) {
        return slots.tryAllocate(waitingIn);
    }

    @Override
    public void deployAll() {
        deployer.deployAll();
    }

    @Override
    public void cancelAllTasks() {
        deployer.cancelAll();
    }

    @Override
    public boolean allTasksEnded() {
        return deployer.current().allEnded();
    }

    @Override
    public boolean allTasksFinished() {
        return deployer.current().allFinished();
    }

    @Override
    public void releaseDeployment() {
        deployer.release();
    }

    @Override
    public void startCheckpointing() {
        checkpoints.start();
    }

    @Override
    public void stopCheckpointing(String reason) {
        checkpoints.stop(reason);
    }

    @Override
    public FailoverDecision failover(TaskFailure failure) {
        return failover.onFailure(failure, deployer.current().restoreCheckpointId());
    }

    @Override
    public Duration restartDelay() {
        return failover.restartDelay();
    }

    @Override
    public boolean restoreFallbackInProgress() {
        return restoreFallback.inProgress();
    }

    @Override
    public boolean readyToDeploy(Consumer<Duration> retryAfter, BiConsumer<String, Duration> waitForRepairedState) {
        return restoreFallback.readyToDeploy(retryAfter, waitForRepairedState::accept,
                fellBack -> failures.setLastFailure(new CheckpointException(fellBack)));
    }

    @Override
    public void waitingForRepairedState(String message) {
        failures.setLastFailure(new CheckpointException(message));
        healthMonitor.restoreWaiting(message);
    }

    @Override
    public void finish(JobStatus terminal) {
        slots.stopListening();
        details.captureFinal();
        Throwable failure = terminal == JobStatus.FAILED ? failures.lastFailure() : null;
        result.complete(JobResult.of(jobGraph.jobId(), jobGraph.name(), terminal, clock.currentTimeMillis(), failure));
    }
}
