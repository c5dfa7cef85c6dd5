package io.sluice.concurrent;

import io.sluice.config.Durations;
import java.time.Duration;

/**
 * A {@link RetryRunner} gave up: its {@link BackoffPolicy} allowed no further attempt (attempt
 * limit or deadline). The cause is the last attempt's failure.
 */
public final class RetriesExhaustedException extends Exception {
    private final int attempts;
    private final transient Duration elapsed;

    public RetriesExhaustedException(int attempts, Duration elapsed, Throwable lastFailure) {
        super("Gave up after " + attempts + (attempts == 1 ? " attempt" : " attempts") + " over "
                + Durations.describe(elapsed) + ": " + lastFailure, lastFailure);
        this.attempts = attempts;
        this.elapsed = elapsed;
    }

    /** How many attempts were made, all failed. */
    public int attempts() {
        return attempts;
    }

    /** From the first attempt's start to the last one's failure. */
    public Duration elapsed() {
        return elapsed;
    }
}
