package io.sluice.rpc;

import io.sluice.concurrent.Cancellable;
import io.sluice.concurrent.Scheduler;
import java.time.Duration;

/**
 * The single thread that owns a component's mutable state (Dispatcher, JobMaster, TaskExecutor).
 *
 * <p>Everything that changes a component's fields runs here, in submission order. It never
 * blocks: I/O goes to an I/O executor and comes back with {@code ...Async(fn, mainThread)}.
 * Implementations: {@link DedicatedMainThreadExecutor} (a real thread), {@link PooledMainThreadExecutor}
 * (turns on a shared pool), and in tests a manually triggered one. A {@link Scheduler}, so that a
 * retry loop ({@code io.sluice.concurrent.RetryRunner}) runs its attempts' answers and its retries here.
 */
public interface MainThreadExecutor extends Scheduler {

    /** Runs {@code command} on the main thread after {@code delay}. */
    @Override
    ScheduledTask schedule(Runnable command, Duration delay);

    /** Whether the calling thread is this executor's thread. */
    boolean isMainThread();

    /** Fails fast (always, not only with assertions on) when called from another thread. */
    default void assertRunningInMainThread() {
        if (!isMainThread()) {
            throw new IllegalStateException("Called from thread '" + Thread.currentThread().getName()
                    + "', but this code must run on the main thread of " + componentName());
        }
    }

    String componentName();

    /** A scheduled command that can be cancelled. */
    interface ScheduledTask extends Cancellable {
        @Override
        void cancel();
    }
}
