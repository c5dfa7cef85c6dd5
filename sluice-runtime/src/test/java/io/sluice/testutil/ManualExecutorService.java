package io.sluice.testutil;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * An {@link java.util.concurrent.ExecutorService} that only queues: the I/O executor of
 * deterministic tests for components that need an {@code ExecutorService} (to cancel a call in
 * flight with {@code Future.cancel(true)}). {@link #triggerAll()} runs the queue on the calling
 * thread, {@link #triggerNext()} one command. A task cancelled before it runs does nothing when
 * run. Shutdown only marks it shut down. {@link #execute} may be called from any thread; trigger
 * from one thread at a time.
 */
public final class ManualExecutorService extends AbstractExecutorService {
    private final Deque<Runnable> queue = new ArrayDeque<>();
    private volatile boolean shutdown;

    @Override
    public void execute(Runnable command) {
        if (command == null) {
            throw new NullPointerException("command");
        }
        synchronized (queue) {
            queue.addLast(command);
        }
    }

    /** Runs queued commands, including those queued meanwhile, until none is left. Returns how many ran. */
    public int triggerAll() {
        int ran = 0;
        while (triggerNext()) {
            ran++;
        }
        return ran;
    }

    /** Runs the oldest queued command; false if there was none. */
    public boolean triggerNext() {
        Runnable next;
        synchronized (queue) {
            next = queue.pollFirst();
        }
        if (next == null) {
            return false;
        }
        next.run();
        return true;
    }

    public int numQueued() {
        synchronized (queue) {
            return queue.size();
        }
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        synchronized (queue) {
            List<Runnable> left = List.copyOf(queue);
            queue.clear();
            return left;
        }
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown && numQueued() == 0;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return isTerminated();
    }
}
