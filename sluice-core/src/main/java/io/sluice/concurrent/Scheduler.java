package io.sluice.concurrent;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Runs commands now ({@link #execute}) or after a delay ({@link #schedule}), on the thread(s) its
 * owner chose: a component's main thread (every {@code MainThreadExecutor} is one), a
 * {@link ScheduledExecutorService} ({@link #of}), or a manually triggered one in tests. What
 * {@link RetryRunner} schedules its attempts on.
 */
public interface Scheduler extends Executor {

    /** Runs {@code command} after {@code delay} (zero or negative: as soon as possible). */
    Cancellable schedule(Runnable command, Duration delay);

    /**
     * A scheduler over {@code executor}. Once the executor is shut down, commands are dropped
     * (a retry of a closed component does not run), not thrown back at the caller.
     */
    static Scheduler of(ScheduledExecutorService executor) {
        Objects.requireNonNull(executor, "executor");
        return new Scheduler() {
            @Override
            public void execute(Runnable command) {
                try {
                    executor.execute(command);
                } catch (RejectedExecutionException shutDown) {
                    // dropped: the owner closed the executor
                }
            }

            @Override
            public Cancellable schedule(Runnable command, Duration delay) {
                try {
                    ScheduledFuture<?> f = executor.schedule(command, Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
                    return () -> f.cancel(false);
                } catch (RejectedExecutionException shutDown) {
                    return () -> { };
                }
            }
        };
    }
}
