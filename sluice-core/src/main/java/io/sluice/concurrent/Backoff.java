package io.sluice.concurrent;

import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * One retry loop's progress through its {@link BackoffPolicy}: counts the failed attempts, gives
 * the wait before the next one (cut short so that it ends at the deadline), and says when the
 * policy allows no more. Time comes from the injected {@link Clock}, so a test advances a manual
 * clock instead of waiting.
 *
 * <p>Not thread-safe: owned by one loop, whose callbacks run on one thread at a time (its
 * component's main thread, or an executor that hands the loop from one task to the next).
 */
public final class Backoff {
    private final BackoffPolicy policy;
    private final Clock clock;
    private final RandomGenerator random;
    private long startNanos;
    private int failedAttempts;

    Backoff(BackoffPolicy policy, Clock clock, RandomGenerator random) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.clock = Objects.requireNonNull(clock, "clock");
        this.random = policy.jitter() == 0 ? random : Objects.requireNonNull(random, "random (the policy has jitter)");
        this.startNanos = clock.nanoTime();
    }

    public BackoffPolicy policy() {
        return policy;
    }

    /** How many attempts failed since the start (or the last {@link #reset()}). */
    public int failedAttempts() {
        return failedAttempts;
    }

    /** Time since the start (or the last {@link #reset()}). */
    public Duration elapsed() {
        return Duration.ofNanos(clock.nanoTime() - startNanos);
    }

    /**
     * Counts one more failed attempt and returns the wait before the next, at most until the
     * deadline; empty when the policy allows no further attempt (its attempt limit reached, or its
     * deadline passed).
     */
    public Optional<Duration> nextDelay() {
        failedAttempts++;
        Duration elapsed = elapsed();
        if (!policy.allowsRetry(failedAttempts, elapsed)) {
            return Optional.empty();
        }
        Duration delay = policy.delayAfter(failedAttempts, random);
        Optional<Duration> deadline = policy.deadline();
        if (deadline.isPresent()) {
            Duration left = deadline.get().minus(elapsed);
            if (left.compareTo(delay) < 0) {
                delay = left;
            }
        }
        return Optional.of(delay);
    }

    /** Starts over: no failed attempt, the deadline counted from now. */
    public void reset() {
        failedAttempts = 0;
        startNanos = clock.nanoTime();
    }
}
