package io.sluice.jobmaster;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Waits between recovery attempts: exponential from {@code initial} up to {@code max}, with
 * +/- {@code jitter} (a fraction) so that many jobs recovering at once do not retry in lockstep.
 */
public record RecoveryBackoff(Duration initial, Duration max, double multiplier, double jitter) {
    public static final RecoveryBackoff DEFAULT = new RecoveryBackoff(Duration.ofMillis(100), Duration.ofSeconds(10), 2.0, 0.2);

    public RecoveryBackoff {
        if (initial.isNegative() || max.compareTo(initial) < 0 || multiplier < 1.0 || jitter < 0 || jitter >= 1) {
            throw new IllegalArgumentException("Invalid recovery backoff: initial " + initial + ", max " + max
                    + ", multiplier " + multiplier + ", jitter " + jitter);
        }
    }

    /** The wait after the {@code attempt}-th failed attempt (1-based). */
    public Duration delayAfter(int attempt, RandomGenerator random) {
        double base = initial.toNanos() * Math.pow(multiplier, Math.max(0, attempt - 1));
        base = Math.min(base, max.toNanos());
        double factor = 1.0 + (jitter == 0 ? 0 : (random.nextDouble() * 2 - 1) * jitter);
        return Duration.ofNanos((long) Math.min(max.toNanos(), base * factor));
    }
}
