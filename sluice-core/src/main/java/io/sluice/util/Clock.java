package io.sluice.util;

/**
 * The source of time for everything that waits, times out or stamps a transition. Injected, so
 * that tests advance time by hand instead of sleeping.
 */
public interface Clock {
    /** Wall-clock time, for timestamps shown to users. */
    long currentTimeMillis();

    /** Monotonic time, for measuring durations and deadlines. */
    long nanoTime();

    /** Monotonic time in milliseconds. */
    default long relativeTimeMillis() {
        return nanoTime() / 1_000_000L;
    }
}
