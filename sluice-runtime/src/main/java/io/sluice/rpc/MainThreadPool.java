package io.sluice.rpc;

import io.sluice.concurrent.DaemonThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;

/**
 * A small fixed pool of threads that many components borrow their main thread from ({@link
 * PooledMainThreadExecutor}): a job manager gives each job's runner and each job master its own
 * main thread from one pool, so a thousand jobs need a handful of threads and no job's work ever
 * runs on, or waits for, the Dispatcher's main thread. Delayed commands are timed by one scheduler
 * thread and then queued on their component.
 *
 * <p>Size: main threads never block (I/O goes to the I/O executor), so a few threads keep up with
 * any number of components; {@link #defaultSize()} is twice the processors, at least 4, so that a
 * component that does block by mistake stalls only its share.
 *
 * <p>Threading: thread-safe. {@link #close()} stops the threads after the queued work; commands
 * submitted later are dropped (logged at debug level).
 */
public final class MainThreadPool implements AutoCloseable {
    private final ExecutorService pool;
    private final ScheduledExecutorService timer;

    /** @param name prefix of the threads' names ({@code sluice-main-<name>-N}) */
    public MainThreadPool(String name, int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("A main thread pool needs at least 1 thread, got " + threads);
        }
        this.pool = Executors.newFixedThreadPool(threads, DaemonThreadFactory.numbered("sluice-main-" + name + "-"));
        ScheduledThreadPoolExecutor t = new ScheduledThreadPoolExecutor(1,
                DaemonThreadFactory.numbered("sluice-main-" + name + "-timer-"));
        t.setRemoveOnCancelPolicy(true);
        this.timer = t;
    }

    /** Twice the processors, at least 4. */
    public static int defaultSize() {
        return Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    }

    /** A new main thread named {@code componentName}, borrowing its thread from this pool. */
    public MainThreadExecutor newMainThread(String componentName) {
        return new PooledMainThreadExecutor(componentName, pool, timer);
    }

    @Override
    public void close() {
        timer.shutdownNow();
        pool.shutdown();
    }
}
