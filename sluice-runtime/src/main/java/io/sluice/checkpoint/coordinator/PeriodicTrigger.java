package io.sluice.checkpoint.coordinator;

import io.sluice.graph.JobConfig;
import io.sluice.rpc.MainThreadExecutor;
import java.time.Duration;

/**
 * The timer of a {@link CheckpointCoordinator}: while checkpointing runs, it fires once every
 * {@code checkpoints.interval}; whether a firing starts a checkpoint is the coordinator's call
 * (none while one is pending, or while not every task runs). {@link #isRunning()} is the switch the
 * other pieces consult: once stopped, nothing is started, completed or reported as failed any more.
 *
 * <p>Threading: the job master's main thread only; every method checks it, and the timer fires
 * there.
 */
final class PeriodicTrigger {
    private final JobConfig config;
    private final MainThreadExecutor mainThread;
    private final Runnable trigger;

    private boolean running;
    /** The next firing, or {@code null} while stopped (or while firing). */
    private MainThreadExecutor.ScheduledTask next;

    PeriodicTrigger(JobConfig config, MainThreadExecutor mainThread, Runnable trigger) {
        this.config = config;
        this.mainThread = mainThread;
        this.trigger = trigger;
    }

    /** Starts firing one interval from now; no-op when checkpointing is disabled or it already runs. */
    void start() {
        mainThread.assertRunningInMainThread();
        if (!config.checkpointingEnabled() || running) {
            return;
        }
        running = true;
        scheduleNext();
    }

    /** Stops firing; idempotent. */
    void stop() {
        mainThread.assertRunningInMainThread();
        running = false;
        if (next != null) {
            next.cancel();
            next = null;
        }
    }

    boolean isRunning() {
        mainThread.assertRunningInMainThread();
        return running;
    }

    private void scheduleNext() {
        next = mainThread.schedule(() -> {
            next = null;
            if (!running) {
                return;
            }
            trigger.run();
            if (running) { // the trigger may have failed the job, which stops checkpointing
                scheduleNext();
            }
        }, config.checkpointInterval());
    }

    /** The interval between firings, for messages. */
    Duration interval() {
        return config.checkpointInterval();
    }
}
