package io.sluice.concurrent;

import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.PriorityQueue;

/**
 * A {@link Scheduler} for deterministic tests: nothing runs until the test says so, and then it
 * runs on the test's thread. {@link #execute} queues ({@link #runQueued()} runs the queue);
 * {@link #schedule} is keyed to the {@link ManualClock}; {@link #advance} moves the clock and runs
 * what became due, in order of due time (ties in scheduling order), with the queue drained after
 * each. Commands may be submitted from any thread; trigger from one thread, not re-entrantly.
 */
public final class ManualScheduler implements Scheduler {
    private final ManualClock clock;
    private final Object lock = new Object();
    private final Deque<Runnable> queue = new ArrayDeque<>();
    private final PriorityQueue<Due> scheduled = new PriorityQueue<>();
    private long sequence;

    public ManualScheduler(ManualClock clock) {
        this.clock = clock;
    }

    @Override
    public void execute(Runnable command) {
        synchronized (lock) {
            queue.addLast(command);
        }
    }

    @Override
    public Cancellable schedule(Runnable command, Duration delay) {
        Due due;
        synchronized (lock) {
            due = new Due(clock.nanoTime() + Math.max(0, delay.toNanos()), sequence++, command);
            scheduled.add(due);
        }
        return () -> {
            synchronized (lock) {
                scheduled.remove(due);
            }
        };
    }

    /** Runs the queued commands, also those queued meanwhile; returns how many ran. */
    public int runQueued() {
        int ran = 0;
        Runnable next;
        while ((next = pollQueue()) != null) {
            next.run();
            ran++;
        }
        return ran;
    }

    /** Moves the clock by {@code by}, running every command due by then (and the queue after each). */
    public int advance(Duration by) {
        long target = clock.nanoTime() + by.toNanos();
        int ran = runQueued();
        Due next;
        while ((next = pollDueBy(target)) != null) {
            if (next.nanos > clock.nanoTime()) {
                clock.advance(Duration.ofNanos(next.nanos - clock.nanoTime()));
            }
            next.command.run();
            ran += 1 + runQueued();
        }
        if (target > clock.nanoTime()) {
            clock.advance(Duration.ofNanos(target - clock.nanoTime()));
        }
        return ran;
    }

    /** Scheduled commands not yet run nor cancelled. */
    public int numScheduled() {
        synchronized (lock) {
            return scheduled.size();
        }
    }

    /** The delay of the next scheduled command from now, or null if none. */
    public Duration nextDelay() {
        synchronized (lock) {
            Due head = scheduled.peek();
            return head == null ? null : Duration.ofNanos(head.nanos - clock.nanoTime());
        }
    }

    private Runnable pollQueue() {
        synchronized (lock) {
            return queue.pollFirst();
        }
    }

    private Due pollDueBy(long nanos) {
        synchronized (lock) {
            Due head = scheduled.peek();
            return head != null && head.nanos <= nanos ? scheduled.poll() : null;
        }
    }

    private record Due(long nanos, long seq, Runnable command) implements Comparable<Due> {
        @Override
        public int compareTo(Due o) {
            int byTime = Long.compare(nanos, o.nanos);
            return byTime != 0 ? byTime : Long.compare(seq, o.seq);
        }
    }
}
