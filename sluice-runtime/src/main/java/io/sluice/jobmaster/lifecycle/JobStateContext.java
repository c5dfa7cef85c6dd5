package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The context of one state object: implements every state's {@code Context}, and each state sees it
 * only through its own. Transitions go through {@link JobLifecycle#transition} with this context's
 * state as the state left, so that a state that is no longer current cannot move the job;
 * everything else is handed to the job master's {@link JobActions}.
 *
 * <p>Threading: the job master's main thread only.
 */
final class JobStateContext implements Created.Context, WaitingForResources.Context, Running.Context,
        Restarting.Context, FallingBack.Context, Failing.Context, Cancelling.Context, Suspended.Context,
        Ended.Context {
    private final JobLifecycle lifecycle;
    private final JobActions actions;
    /** The state this context belongs to; set once, right after the state is created. */
    private JobState owner;

    JobStateContext(JobLifecycle lifecycle, JobActions actions) {
        this.lifecycle = lifecycle;
        this.actions = actions;
    }

    void bind(JobState state) {
        if (owner != null) {
            throw new IllegalStateException("Context already bound to " + owner.name());
        }
        owner = state;
    }

    // ---------------------------------------------------------------- transitions

    @Override
    public void goToRunning() {
        lifecycle.transition(owner, lifecycle.newState(Running::new));
    }

    @Override
    public void goToWaitingForResources() {
        JobStatus shownAs = owner.status();
        lifecycle.transition(owner, lifecycle.newState(c -> new WaitingForResources(c, shownAs)));
    }

    @Override
    public void goToRestarting() {
        lifecycle.transition(owner, lifecycle.newState(Restarting::new));
    }

    @Override
    public void goToFallingBack() {
        lifecycle.transition(owner, lifecycle.newState(FallingBack::new));
    }

    @Override
    public void goToFailing() {
        lifecycle.transition(owner, lifecycle.newState(Failing::new));
    }

    @Override
    public void goToCancelling() {
        lifecycle.transition(owner, lifecycle.newState(Cancelling::new));
    }

    @Override
    public void goToSuspended(String reason) {
        lifecycle.transition(owner, lifecycle.newState(c -> new Suspended(c, reason)));
    }

    @Override
    public void goToFinished() {
        lifecycle.transition(owner, lifecycle.newState(Finished::new));
    }

    @Override
    public void goToFailed() {
        lifecycle.transition(owner, lifecycle.newState(Failed::new));
    }

    @Override
    public void goToCanceled() {
        lifecycle.transition(owner, lifecycle.newState(Canceled::new));
    }

    // ---------------------------------------------------------------- the state's own timers

    @Override
    public boolean isCurrent() {
        return lifecycle.isCurrent(owner);
    }

    @Override
    public MainThreadExecutor.ScheduledTask runIfCurrent(Runnable action, Duration delay) {
        return lifecycle.runIfCurrent(owner, action, delay);
    }

    @Override
    public String jobLabel() {
        return lifecycle.jobLabel();
    }

    // ---------------------------------------------------------------- actions on the job

    @Override
    public void listenToSlotPool() {
        actions.listenToSlotPool();
    }

    @Override
    public boolean tryAllocateSlots() {
        return actions.tryAllocateSlots(owner.status());
    }

    @Override
    public void deployAll() {
        actions.deployAll();
    }

    @Override
    public void cancelAllTasks() {
        actions.cancelAllTasks();
    }

    @Override
    public boolean allTasksEnded() {
        return actions.allTasksEnded();
    }

    @Override
    public boolean allTasksFinished() {
        return actions.allTasksFinished();
    }

    @Override
    public void releaseDeployment() {
        actions.releaseDeployment();
    }

    @Override
    public void startCheckpointing() {
        actions.startCheckpointing();
    }

    @Override
    public void stopCheckpointing(String reason) {
        actions.stopCheckpointing(reason);
    }

    @Override
    public FailoverDecision failover(TaskFailure failure) {
        return actions.failover(failure);
    }

    @Override
    public Duration restartDelay() {
        return actions.restartDelay();
    }

    @Override
    public boolean restoreFallbackInProgress() {
        return actions.restoreFallbackInProgress();
    }

    @Override
    public boolean readyToDeploy(Consumer<Duration> retryAfter, BiConsumer<String, Duration> waitForRepairedState) {
        return actions.readyToDeploy(retryAfter, waitForRepairedState);
    }

    @Override
    public void waitingForRepairedState(String message) {
        actions.waitingForRepairedState(message);
    }

    @Override
    public void finish(JobStatus terminal) {
        actions.finish(terminal);
    }
}
