package io.sluice.jobmaster.lifecycle;

import io.sluice.job.JobStatus;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;

/**
 * The checkpoint the failed round restored from turned out unusable: before deploying again the
 * job looks, on the I/O executor, for the newest older retained checkpoint with usable state
 * (retrying storage errors). When none is left it does not end: it waits here, still RESTARTING
 * with its graph and checkpoints, and retries on a slow backoff until the files are repaired or it
 * is cancelled. Then it deploys, or waits for slots.
 */
final class FallingBack implements JobState {
    /** What {@link FallingBack} may do. */
    interface Context {
        /**
         * Whether the restore checkpoint is settled. If not, exactly one callback comes later on the
         * main thread: {@code retryAfter} (ask again after that delay) or {@code waitForRepairedState}
         * (no usable checkpoint is left: the message, and when to ask again).
         */
        boolean readyToDeploy(java.util.function.Consumer<Duration> retryAfter,
                              java.util.function.BiConsumer<String, Duration> waitForRepairedState);

        /** Records that the job waits for repaired state files ({@code message} is its failure meanwhile). */
        void waitingForRepairedState(String message);

        boolean tryAllocateSlots();

        boolean isCurrent();

        /** Runs {@code action} after {@code delay}, if this state is still the current one then. */
        MainThreadExecutor.ScheduledTask runIfCurrent(Runnable action, Duration delay);

        void goToRunning();

        void goToWaitingForResources();

        void goToCancelling();

        void goToSuspended(String reason);
    }

    private final Context context;
    /** The next attempt, or {@code null} while an attempt runs or waits for the store's answer. */
    private MainThreadExecutor.ScheduledTask retry;

    FallingBack(Context context) {
        this.context = context;
    }

    @Override
    public JobStatus status() {
        return JobStatus.RESTARTING;
    }

    @Override
    public void onEnter() {
        attempt();
    }

    private void attempt() {
        retry = null;
        if (!context.readyToDeploy(this::retryAfter, this::waitForRepairedState)) {
            return;
        }
        if (context.tryAllocateSlots()) {
            context.goToRunning();
        } else {
            context.goToWaitingForResources();
        }
    }

    private void retryAfter(Duration delay) {
        if (!context.isCurrent() || retry != null) {
            return;
        }
        if (delay.isZero()) {
            attempt();
        } else {
            retry = context.runIfCurrent(this::attempt, delay);
        }
    }

    private void waitForRepairedState(String message, Duration retryIn) {
        if (!context.isCurrent() || retry != null) {
            return;
        }
        context.waitingForRepairedState(message);
        retry = context.runIfCurrent(this::attempt, retryIn);
    }

    @Override
    public void onLeave() {
        if (retry != null) {
            retry.cancel();
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
