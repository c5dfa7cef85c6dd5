package io.sluice.metrics;

import java.util.function.LongSupplier;

/**
 * The fraction of wall time a task's output was blocked on a full channel, over the window since
 * the previous reading (at least {@code minWindowNanos}; a reading sooner than that repeats the
 * previous value). 0 means never blocked, 1 means blocked the whole window. The first window starts
 * when this object is created.
 *
 * <p>Threading: thread-safe (readers are scrapes; they take this object's lock briefly).
 */
public final class BackpressureRatio {
    private final LongSupplier blockedNanos;
    private final LongSupplier nanoClock;
    private final long minWindowNanos;
    private long lastWallNanos;
    private long lastBlockedNanos;
    private double lastRatio;

    /**
     * @param blockedNanos total time the output was blocked so far (monotonic)
     * @param nanoClock    a monotonic clock, for example {@code System::nanoTime}
     */
    public BackpressureRatio(LongSupplier blockedNanos, LongSupplier nanoClock, long minWindowNanos) {
        this.blockedNanos = blockedNanos;
        this.nanoClock = nanoClock;
        this.minWindowNanos = minWindowNanos;
        this.lastWallNanos = nanoClock.getAsLong();
        this.lastBlockedNanos = blockedNanos.getAsLong();
    }

    public synchronized double ratio() {
        long now = nanoClock.getAsLong();
        long wall = now - lastWallNanos;
        if (wall < minWindowNanos || wall <= 0) {
            return lastRatio;
        }
        long blocked = blockedNanos.getAsLong();
        double r = (double) (blocked - lastBlockedNanos) / wall;
        lastRatio = Math.max(0.0, Math.min(1.0, r));
        lastWallNanos = now;
        lastBlockedNanos = blocked;
        return lastRatio;
    }
}
