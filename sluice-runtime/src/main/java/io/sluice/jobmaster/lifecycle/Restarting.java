package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;

/**
 * After a failure the job restarts: every task of the failed round is cancelled; once all have
 * ended, the round's channels are released and, after the restart delay (the restart strategy's
 * backoff, longer in a crash loop, none for a fallback), the job deploys again, falls back to an
 * older checkpoint first ({@link FallingBack}) or waits for slots.
 */
final class Restarting implements JobState {
    /** What {@link Restarting} may do. */
    interface Context {
        void cancelAllTasks();

        boolean allTasksEnded();

        void releaseDeployment();

        Duration restartDelay();

        boolean restoreFallbackInProgress();

        boolean tryAllocateSlots();

        /** Runs {@code action} after {@code delay}, if this state is still the current one then. */
        MainThreadExecutor.ScheduledTask runIfCurrent(Runnable action, Duration delay);

        void goToFallingBack();

        void goToRunning();

        void goToWaitingForResources();

        void goToCancelling();

        void goToSuspended(String reason);
    }

    private final Context context;
    /** The restart once every task ended, or {@code null} while tasks are still being cancelled. */
    private MainThreadExecutor.ScheduledTask restart;

    Restarting(Context context) {
        this.context = context;
    }

    @Override
    public JobStatus status() {
        return JobStatus.RESTARTING;
    }

    @Override
    public void onEnter() {
        context.cancelAllTasks();
        onTaskEnded();
    }

    @Override
    public void onTaskEnded() {
        if (restart != null || !context.allTasksEnded()) {
            return;
        }
        context.releaseDeployment();
        restart = context.runIfCurrent(this::restartDue, context.restartDelay());
    }

    private void restartDue() {
        if (context.restoreFallbackInProgress()) {
            context.goToFallingBack();
        } else if (context.tryAllocateSlots()) {
            context.goToRunning();
        } else {
            context.goToWaitingForResources();
        }
    }

    @Override
    public void onLeave() {
        if (restart != null) {
            restart.cancel();
        }
    }

    @Override
    public void cancel() {
        context.goToCancelling();
    }

    @Override
    public void suspend(String reason) {
        context.goToSuspended(reason);
    }
}
