package io.sluice.rpc.remote;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.sluice.concurrent.DaemonThreadFactory;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads of one {@link RpcService}, all daemon threads whose context class loader is the
 * runtime's (never the starting thread's, which may be a job's):
 * <ul>
 *   <li>{@code ioThreads} Netty event loops {@code sluice-rpc-<n>-io-*}: socket I/O, frame splitting,
 *       deserializing and invoking calls; nothing on them may block;</li>
 *   <li>workers {@code sluice-rpc-<n>-worker-*}, created on demand: serializing answers, completing
 *       callers' futures ({@link #completeOffEventLoop}), resolving host names;</li>
 *   <li>the timer of request timeouts: injected, or one thread {@code sluice-rpc-<n>-timer} of its own.</li>
 * </ul>
 * Thread-safe. {@link #shutDown} blocks until the event loops stopped (a few ms).
 */
final class RpcThreads {
    private final String prefix;
    private final EventLoopGroup eventLoops;
    private final ExecutorService workers;
    private final ScheduledExecutorService timer;
    private final boolean ownsTimer;

    /** @param timer schedules the request timeouts; {@code null}: a thread of this service's own */
    RpcThreads(int serviceNumber, int ioThreads, ScheduledExecutorService timer) {
        this.prefix = "sluice-rpc-" + serviceNumber;
        if (timer != null) {
            this.timer = timer;
            this.ownsTimer = false;
        } else {
            ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, DaemonThreadFactory.named(prefix + "-timer"));
            own.setRemoveOnCancelPolicy(true); // answered requests do not leave their timeouts queued
            this.timer = own;
            this.ownsTimer = true;
        }
        this.eventLoops = new NioEventLoopGroup(ioThreads,
                DaemonThreadFactory.withSluiceClassLoader(new DefaultThreadFactory(prefix + "-io", true)));
        this.workers = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                DaemonThreadFactory.numbered(prefix + "-worker-"));
    }

    EventLoopGroup eventLoops() {
        return eventLoops;
    }

    ExecutorService workers() {
        return workers;
    }

    ScheduledExecutorService timer() {
        return timer;
    }

    /** The name prefix of these threads, {@code sluice-rpc-<n>-}. */
    String namePrefix() {
        return prefix + "-";
    }

    /** Runs {@code completion} on a worker, so that callbacks never run on an event loop; on the calling thread once shut down. */
    void completeOffEventLoop(Runnable completion) {
        try {
            workers.execute(completion);
        } catch (RejectedExecutionException closing) {
            completion.run();
        }
    }

    /** Stops the event loops (waits up to 10 s), the workers and the own timer. Never from one of these threads. */
    void shutDown() {
        eventLoops.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(10, TimeUnit.SECONDS);
        workers.shutdown();
        if (ownsTimer) {
            timer.shutdownNow();
        }
    }
}
