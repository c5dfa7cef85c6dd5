package io.sluice.rpc;

import io.sluice.concurrent.DaemonThreadFactory;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link MainThreadExecutor} backed by one daemon thread. Uncaught exceptions in commands are
 * logged (a command that throws is a bug: components report expected errors through futures).
 */
public final class DedicatedMainThreadExecutor implements MainThreadExecutor, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DedicatedMainThreadExecutor.class);

    private final String componentName;
    private final ScheduledThreadPoolExecutor executor;
    private volatile Thread thread;

    public DedicatedMainThreadExecutor(String componentName) {
        this.componentName = componentName;
        ThreadFactory threads = DaemonThreadFactory.named("sluice-main-" + componentName);
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = threads.newThread(() -> {
                MainThreads.markCurrentThread(componentName);
                r.run();
            });
            thread = t;
            return t;
        });
        this.executor.setRemoveOnCancelPolicy(true);
        this.executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** Queues {@code command}; after {@link #close()} commands are dropped (logged at debug level). */
    @Override
    public void execute(Runnable command) {
        try {
            executor.execute(guard(command));
        } catch (RejectedExecutionException e) {
            LOG.debug("Dropped a command for {}: its main thread has stopped", componentName);
        }
    }

    @Override
    public ScheduledTask schedule(Runnable command, Duration delay) {
        try {
            ScheduledFuture<?> f = executor.schedule(guard(command), Math.max(0, delay.toNanos()), TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        } catch (RejectedExecutionException e) {
            LOG.debug("Dropped a scheduled command for {}: its main thread has stopped", componentName);
            return () -> { };
        }
    }

    private Runnable guard(Runnable command) {
        return () -> {
            try {
                command.run();
            } catch (Throwable t) {
                LOG.error("Unexpected error on the main thread of {}", componentName, t);
            }
        };
    }

    @Override
    public boolean isMainThread() {
        return Thread.currentThread() == thread;
    }

    @Override
    public String componentName() {
        return componentName;
    }

    /**
     * For a component that has ended but may still receive late messages (a job master whose job
     * ended): commands keep running, in order, but the thread exits after a short idle time
     * instead of living on, and is recreated if another command arrives. Nothing is dropped, so
     * no caller's future is left incomplete.
     */
    public void retire() {
        executor.setKeepAliveTime(5, TimeUnit.SECONDS);
        executor.allowCoreThreadTimeOut(true);
    }

    /** Stops the thread after the commands already queued have run; later commands are dropped. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
