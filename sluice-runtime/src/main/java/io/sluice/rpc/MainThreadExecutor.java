package io.sluice.rpc;

import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The single thread that owns a component's mutable state (Dispatcher, JobMaster, TaskExecutor).
 *
 * <p>Everything that changes a component's fields runs here, in submission order. It never
 * blocks: I/O goes to an I/O executor and comes back with {@code ...Async(fn, mainThread)}.
 * Implementations: {@link DedicatedMainThreadExecutor} (a real thread), and in tests a manually
 * triggered one.
 */
public interface MainThreadExecutor extends Executor {

    /** Runs {@code command} on the main thread after {@code delay}. */
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
    interface ScheduledTask {
        void cancel();
    }
}
