package io.sluice.testutil;

import io.sluice.rpc.MainThreadExecutor;
import io.sluice.rpc.MainThreads;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.PriorityQueue;
import java.util.function.IntSupplier;

/**
 * A {@link MainThreadExecutor} for deterministic tests: nothing runs until the test says so, and
 * then it runs on the test's own thread.
 *
 * <p>{@link #execute} queues; {@link #triggerAll()} runs the queue. {@link #schedule} is keyed to
 * the {@link ManualClock} given to the constructor; {@link #advanceTime(Duration)} moves that
 * clock and runs what became due. While commands run, the calling thread counts as this
 * executor's main thread: {@link #isMainThread()} is true and {@link MainThreads} reports this
 * component; both are reset afterwards. Commands that throw propagate to the test (unlike the
 * real executor, which logs), and the remaining commands stay queued.
 *
 * <p>Threading: {@code execute} and {@code schedule} may be called from any thread (futures
 * completed by I/O threads); triggering must happen on one thread at a time and not re-entrantly.
 */
public final class ManuallyTriggeredMainThreadExecutor implements MainThreadExecutor {
    private final String componentName;
    private final ManualClock clock;
    private final Object lock = new Object();
    private final Deque<Runnable> queue = new ArrayDeque<>();
    private final PriorityQueue<Scheduled> scheduled = new PriorityQueue<>();
    private long sequence;
    private volatile Thread triggeringThread;

    public ManuallyTriggeredMainThreadExecutor(String componentName, ManualClock clock) {
        this.componentName = componentName;
        this.clock = clock;
    }

    @Override
    public void execute(Runnable command) {
        if (command == null) {
            throw new NullPointerException("command");
        }
        synchronized (lock) {
            queue.addLast(command);
        }
    }

    /** Queues {@code command} to run once the clock has reached now + {@code delay} (negative: now). */
    @Override
    public ScheduledTask schedule(Runnable command, Duration delay) {
        if (command == null) {
            throw new NullPointerException("command");
        }
        Scheduled task;
        synchronized (lock) {
            task = new Scheduled(clock.nanoTime() + Math.max(0L, delay.toNanos()), sequence++, command);
            scheduled.add(task);
        }
        return () -> {
            synchronized (lock) {
                scheduled.remove(task);
            }
        };
    }

    /**
     * Runs queued commands in submission order, including those queued while running, until the
     * queue is empty. Scheduled commands are not run, even if due; see {@link #advanceTime}.
     *
     * @return the number of commands run
     */
    public int triggerAll() {
        return asMainThread(this::runQueue);
    }

    /**
     * Advances the clock by {@code by} and runs, in order of due time (ties in scheduling order),
     * every scheduled command that is due by then, including ones scheduled meanwhile. The clock
     * stops at each command's due time while it runs, and queued commands run after each scheduled
     * one, as on a real main thread. Finally the clock reaches now + {@code by} and the queue is
     * drained. {@code advanceTime(Duration.ZERO)} runs what is due without moving time.
     *
     * @return the number of commands run, scheduled and queued
     */
    public int advanceTime(Duration by) {
        if (by.isNegative()) {
            throw new IllegalArgumentException("Time does not go back: " + by);
        }
        long target = clock.nanoTime() + by.toNanos();
        return asMainThread(() -> {
            int ran = runQueue();
            Scheduled next;
            while ((next = pollDueBy(target)) != null) {
                moveClockTo(next.dueNanos);
                next.command.run();
                ran += 1 + runQueue();
            }
            moveClockTo(target);
            return ran + runQueue();
        });
    }

    public int numQueued() {
        synchronized (lock) {
            return queue.size();
        }
    }

    /** Scheduled commands not yet run nor cancelled. */
    public int numScheduled() {
        synchronized (lock) {
            return scheduled.size();
        }
    }

    @Override
    public boolean isMainThread() {
        return Thread.currentThread() == triggeringThread;
    }

    @Override
    public String componentName() {
        return componentName;
    }

    private int asMainThread(IntSupplier work) {
        if (triggeringThread != null) {
            throw new IllegalStateException("Already triggering the main thread of " + componentName
                    + " on thread '" + triggeringThread.getName() + "'; trigger from the test, not from a command");
        }
        String previous = MainThreads.currentComponent();
        triggeringThread = Thread.currentThread();
        MainThreads.markCurrentThread(componentName);
        try {
            return work.getAsInt();
        } finally {
            triggeringThread = null;
            if (previous == null) {
                MainThreads.clearCurrentThread();
            } else {
                MainThreads.markCurrentThread(previous);
            }
        }
    }

    private int runQueue() {
        int ran = 0;
        Runnable next;
        while ((next = pollQueue()) != null) {
            next.run();
            ran++;
        }
        return ran;
    }

    private Runnable pollQueue() {
        synchronized (lock) {
            return queue.pollFirst();
        }
    }

    private Scheduled pollDueBy(long nanos) {
        synchronized (lock) {
            Scheduled head = scheduled.peek();
            return head != null && head.dueNanos <= nanos ? scheduled.poll() : null;
        }
    }

    private void moveClockTo(long nanos) {
        long now = clock.nanoTime();
        if (nanos > now) {
            clock.advance(Duration.ofNanos(nanos - now));
        }
    }

    private record Scheduled(long dueNanos, long seq, Runnable command) implements Comparable<Scheduled> {
        @Override
        public int compareTo(Scheduled other) {
            int byTime = Long.compare(dueNanos, other.dueNanos);
            return byTime != 0 ? byTime : Long.compare(seq, other.seq);
        }
    }
}
