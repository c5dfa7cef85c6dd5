package io.sluice.testutil;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link ScheduledExecutorService} on a manual clock: {@link #schedule} only records the task,
 * and {@link #advance(long, TimeUnit)} moves the clock, running (on the calling thread, in order of
 * their time) every task that became due. {@link #execute} runs at the current time on the next
 * advance. Periodic scheduling is not supported. Thread-safe; advance from one thread at a time.
 */
public final class ManualScheduledExecutorService extends AbstractExecutorService implements ScheduledExecutorService {
    private final List<Scheduled<?>> tasks = new ArrayList<>();
    private final AtomicLong sequence = new AtomicLong();
    private long nowNanos;
    private volatile boolean shutdown;

    private final class Scheduled<V> extends FutureTask<V> implements ScheduledFuture<V> {
        final long dueNanos;
        final long seq = sequence.incrementAndGet();

        Scheduled(Callable<V> callable, long dueNanos) {
            super(callable);
            this.dueNanos = dueNanos;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            synchronized (tasks) {
                return unit.convert(dueNanos - nowNanos, TimeUnit.NANOSECONDS);
            }
        }

        @Override
        public int compareTo(Delayed o) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), o.getDelay(TimeUnit.NANOSECONDS));
        }
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        return schedule(() -> {
            command.run();
            return null;
        }, delay, unit);
    }

    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        synchronized (tasks) {
            Scheduled<V> task = new Scheduled<>(callable, nowNanos + unit.toNanos(Math.max(0, delay)));
            tasks.add(task);
            return task;
        }
    }

    /** Moves the clock by {@code amount} and runs every task due by then (also those they schedule). Returns how many ran. */
    public int advance(long amount, TimeUnit unit) {
        long target;
        synchronized (tasks) {
            target = nowNanos + unit.toNanos(amount);
        }
        int ran = 0;
        while (true) {
            Scheduled<?> next;
            synchronized (tasks) {
                next = tasks.stream().filter(t -> t.dueNanos <= target)
                        .min(Comparator.<Scheduled<?>>comparingLong(t -> t.dueNanos).thenComparingLong(t -> t.seq))
                        .orElse(null);
                if (next == null) {
                    nowNanos = target;
                    return ran;
                }
                tasks.remove(next);
                nowNanos = Math.max(nowNanos, next.dueNanos);
            }
            if (!next.isCancelled()) {
                next.run();
                ran++;
            }
        }
    }

    /** Tasks scheduled and neither run nor cancelled. */
    public int numScheduled() {
        synchronized (tasks) {
            return (int) tasks.stream().filter(t -> !t.isCancelled()).count();
        }
    }

    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported by the manual scheduler");
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay, TimeUnit unit) {
        throw new UnsupportedOperationException("periodic tasks are not supported by the manual scheduler");
    }

    @Override
    public void execute(Runnable command) {
        schedule(command, 0, TimeUnit.NANOSECONDS);
    }

    @Override
    public void shutdown() {
        shutdown = true;
    }

    @Override
    public List<Runnable> shutdownNow() {
        shutdown = true;
        synchronized (tasks) {
            List<Runnable> left = new ArrayList<>(tasks);
            tasks.clear();
            return left;
        }
    }

    @Override
    public boolean isShutdown() {
        return shutdown;
    }

    @Override
    public boolean isTerminated() {
        return shutdown;
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) {
        return shutdown;
    }
}
