package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * {@link JobActions} for lifecycle tests: answers what the test set in its public fields, and
 * records every call by name ("cancelAllTasks", "finish FAILED"). Main thread of the test's
 * manually triggered executor only.
 */
final class TestingJobActions implements JobActions {
    boolean slotsAvailable = true;
    boolean tasksEnded = true;
    boolean tasksFinished;
    FailoverDecision decision = FailoverDecision.RESTART;
    boolean fallbackInProgress;
    boolean readyToDeploy = true;
    Duration restartDelay = Duration.ofSeconds(1);
    /** The callbacks of the latest {@link #readyToDeploy} call that returned false. */
    Consumer<Duration> retryAfter;
    BiConsumer<String, Duration> waitForRepairedState;
    final List<String> calls = new ArrayList<>();
    final List<TaskFailure> failures = new ArrayList<>();

    @Override
    public void listenToSlotPool() {
        calls.add("listenToSlotPool");
    }

    @Override
    public boolean tryAllocateSlots(JobStatus waitingIn) {
        calls.add("tryAllocateSlots " + waitingIn);
        return slotsAvailable;
    }

    @Override
    public void deployAll() {
        calls.add("deployAll");
    }

    @Override
    public void cancelAllTasks() {
        calls.add("cancelAllTasks");
    }

    @Override
    public boolean allTasksEnded() {
        return tasksEnded;
    }

    @Override
    public boolean allTasksFinished() {
        return tasksFinished;
    }

    @Override
    public void releaseDeployment() {
        calls.add("releaseDeployment");
    }

    @Override
    public void startCheckpointing() {
        calls.add("startCheckpointing");
    }

    @Override
    public void stopCheckpointing(String reason) {
        calls.add("stopCheckpointing " + reason);
    }

    @Override
    public FailoverDecision failover(TaskFailure failure) {
        failures.add(failure);
        calls.add("failover " + decision);
        return decision;
    }

    @Override
    public Duration restartDelay() {
        return restartDelay;
    }

    @Override
    public boolean restoreFallbackInProgress() {
        return fallbackInProgress;
    }

    @Override
    public boolean readyToDeploy(Consumer<Duration> retryAfter, BiConsumer<String, Duration> waitForRepairedState) {
        calls.add("readyToDeploy " + readyToDeploy);
        if (!readyToDeploy) {
            this.retryAfter = retryAfter;
            this.waitForRepairedState = waitForRepairedState;
        }
        return readyToDeploy;
    }

    @Override
    public void waitingForRepairedState(String message) {
        calls.add("waitingForRepairedState " + message);
    }

    @Override
    public void finish(JobStatus terminal) {
        calls.add("finish " + terminal);
    }
}
