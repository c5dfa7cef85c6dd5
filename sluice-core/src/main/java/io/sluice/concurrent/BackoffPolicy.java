package io.sluice.concurrent;

import io.sluice.config.Durations;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.random.RandomGenerator;

/**
 * How a retry loop waits between attempts, and when it stops: the wait after the {@code n}-th
 * failed attempt is {@code initialDelay · multiplier^(n-1)}, at most {@code maxDelay}, then varied
 * by a random fraction within {@code ± jitter} (so that many loops failing together do not retry
 * in step) and again capped at {@code maxDelay}: a wait never exceeds the cap. Optionally the loop
 * stops after {@code maxAttempts} attempts or once {@code deadline} has passed since it started.
 *
 * <p>Every retry loop in Sluice takes its waits from a policy, through {@link Backoff} (a loop's
 * count of failed attempts), {@link RetryRunner} (a call retried to success), or
 * {@link #delayAfter} where the loop counts attempts itself. The random source is always passed
 * in, and only drawn from when {@code jitter} is above zero, so a seeded loop draws the same
 * numbers every run.
 *
 * <p>Immutable and thread-safe; built with {@link #builder()} or the shorthands {@link #fixed} and
 * {@link #exponential}.
 */
public final class BackoffPolicy {
    private final Duration initialDelay;
    private final double multiplier;
    private final Duration maxDelay;
    private final double jitter;
    /** 0: no limit. */
    private final int maxAttempts;
    /** null: no deadline. */
    private final Duration deadline;

    private BackoffPolicy(Builder b) {
        this.initialDelay = b.initialDelay;
        this.multiplier = b.multiplier;
        this.maxDelay = b.maxDelay == null ? b.initialDelay : b.maxDelay;
        this.jitter = b.jitter;
        this.maxAttempts = b.maxAttempts;
        this.deadline = b.deadline;
    }

    /** The same wait before every retry, without limit (add one with {@link #toBuilder()}). */
    public static BackoffPolicy fixed(Duration delay) {
        return builder().initialDelay(delay).multiplier(1.0).maxDelay(delay).build();
    }

    /** {@code initial}, doubling after every failed attempt up to {@code max}; no jitter, no limit. */
    public static BackoffPolicy exponential(Duration initial, Duration max) {
        return builder().initialDelay(initial).multiplier(2.0).maxDelay(max).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding this policy's settings, to derive another from it. */
    public Builder toBuilder() {
        Builder b = new Builder().initialDelay(initialDelay).multiplier(multiplier).maxDelay(maxDelay).jitter(jitter);
        b.maxAttempts = maxAttempts;
        b.deadline = deadline;
        return b;
    }

    public Duration initialDelay() {
        return initialDelay;
    }

    public double multiplier() {
        return multiplier;
    }

    public Duration maxDelay() {
        return maxDelay;
    }

    /** The fraction by which a wait is varied either way; 0 for none. */
    public double jitter() {
        return jitter;
    }

    /** The most attempts a loop makes (the first included), or empty for no limit. */
    public OptionalInt maxAttempts() {
        return maxAttempts == 0 ? OptionalInt.empty() : OptionalInt.of(maxAttempts);
    }

    /** How long after its start a loop stops retrying, or empty for never. */
    public Optional<Duration> deadline() {
        return Optional.ofNullable(deadline);
    }

    /**
     * The wait after the {@code failedAttempts}-th failed attempt (1-based; lower values count as
     * 1). Draws one number from {@code random} when {@code jitter} is above zero, none otherwise.
     * Ignores the attempt limit and the deadline: see {@link #allowsRetry}.
     */
    public Duration delayAfter(int failedAttempts, RandomGenerator random) {
        double base = baseNanos(failedAttempts);
        if (jitter == 0) {
            return Duration.ofNanos((long) base);
        }
        double factor = 1.0 + (random.nextDouble() * 2 - 1) * jitter;
        return Duration.ofNanos((long) Math.min(maxDelay.toNanos(), base * factor));
    }

    /**
     * The wait after the {@code failedAttempts}-th failed attempt of a policy without jitter.
     *
     * @throws IllegalStateException if this policy has jitter (it needs a random source)
     */
    public Duration delayAfter(int failedAttempts) {
        if (jitter != 0) {
            throw new IllegalStateException("This backoff varies its waits by " + jitter + "; pass the random"
                    + " source to delayAfter(failedAttempts, random)");
        }
        return Duration.ofNanos((long) baseNanos(failedAttempts));
    }

    private double baseNanos(int failedAttempts) {
        double base = initialDelay.toNanos() * Math.pow(multiplier, Math.max(0, failedAttempts - 1));
        return Math.min(base, maxDelay.toNanos());
    }

    /**
     * Whether another attempt may follow the {@code failedAttempts}-th failed one, {@code elapsed}
     * after the loop started: fewer than {@code maxAttempts} attempts made, and the deadline not
     * reached.
     */
    public boolean allowsRetry(int failedAttempts, Duration elapsed) {
        return (maxAttempts == 0 || failedAttempts < maxAttempts) && (deadline == null || elapsed.compareTo(deadline) < 0);
    }

    /**
     * Whether another attempt may follow the {@code failedAttempts}-th failed one, for a loop that
     * counts its own attempts and has no deadline.
     *
     * @throws IllegalStateException if this policy has a deadline (say how long the loop has run)
     */
    public boolean allowsRetry(int failedAttempts) {
        if (deadline != null) {
            throw new IllegalStateException("This backoff stops " + Durations.format(deadline) + " after the loop"
                    + " started; pass the elapsed time to allowsRetry(failedAttempts, elapsed)");
        }
        return allowsRetry(failedAttempts, Duration.ZERO);
    }

    /** A loop's count of failed attempts against this policy, starting now on {@code clock}. */
    public Backoff start(Clock clock, RandomGenerator random) {
        return new Backoff(this, clock, random);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof BackoffPolicy p && initialDelay.equals(p.initialDelay) && multiplier == p.multiplier
                && maxDelay.equals(p.maxDelay) && jitter == p.jitter && maxAttempts == p.maxAttempts
                && Objects.equals(deadline, p.deadline);
    }

    @Override
    public int hashCode() {
        return Objects.hash(initialDelay, multiplier, maxDelay, jitter, maxAttempts, deadline);
    }

    /** For example {@code "backoff 100 ms x2 up to 1 s, +/-20 %, at most 10 attempts"}. */
    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("backoff ").append(Durations.format(initialDelay));
        if (multiplier != 1.0 && !maxDelay.equals(initialDelay)) {
            s.append(" x").append(multiplier == Math.rint(multiplier) ? Long.toString((long) multiplier)
                    : Double.toString(multiplier)).append(" up to ").append(Durations.format(maxDelay));
        }
        if (jitter != 0) {
            s.append(", +/-").append(Math.round(jitter * 100)).append(" %");
        }
        if (maxAttempts != 0) {
            s.append(", at most ").append(maxAttempts).append(maxAttempts == 1 ? " attempt" : " attempts");
        }
        if (deadline != null) {
            s.append(", for at most ").append(Durations.format(deadline));
        }
        return s.toString();
    }

    /** Builds a {@link BackoffPolicy}; {@link #build()} refuses inconsistent settings. Not thread-safe. */
    public static final class Builder {
        private Duration initialDelay;
        private double multiplier = 2.0;
        private Duration maxDelay;
        private double jitter;
        private int maxAttempts;
        private Duration deadline;

        private Builder() {}

        /** The wait after the first failed attempt (required; zero allowed). */
        public Builder initialDelay(Duration initialDelay) {
            this.initialDelay = Objects.requireNonNull(initialDelay, "initialDelay");
            return this;
        }

        /** How much longer each wait is than the one before (at least 1; default 2). */
        public Builder multiplier(double multiplier) {
            this.multiplier = multiplier;
            return this;
        }

        /** The longest wait (default: the initial delay). */
        public Builder maxDelay(Duration maxDelay) {
            this.maxDelay = Objects.requireNonNull(maxDelay, "maxDelay");
            return this;
        }

        /** Vary each wait by a random fraction within {@code ± jitter}, 0 (the default) to below 1. */
        public Builder jitter(double jitter) {
            this.jitter = jitter;
            return this;
        }

        /** Stop after {@code maxAttempts} attempts, the first included (at least 1). */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("Invalid backoff: at most " + maxAttempts + " attempts; a loop makes"
                        + " at least one");
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** Stop retrying once {@code deadline} has passed since the loop started (positive). */
        public Builder deadline(Duration deadline) {
            if (deadline.isNegative() || deadline.isZero()) {
                throw new IllegalArgumentException("Invalid backoff: the deadline must be positive, got " + deadline);
            }
            this.deadline = deadline;
            return this;
        }

        public BackoffPolicy build() {
            if (initialDelay == null) {
                throw new IllegalArgumentException("Invalid backoff: no initial delay");
            }
            Duration max = maxDelay == null ? initialDelay : maxDelay;
            if (initialDelay.isNegative() || max.compareTo(initialDelay) < 0 || !(multiplier >= 1.0)
                    || Double.isInfinite(multiplier) || !(jitter >= 0 && jitter < 1)) {
                throw new IllegalArgumentException("Invalid backoff: initial " + initialDelay + ", max " + max
                        + ", multiplier " + multiplier + ", jitter " + jitter + " (the initial delay must not be"
                        + " negative nor above the max, the multiplier at least 1, the jitter from 0 to below 1)");
            }
            return new BackoffPolicy(this);
        }
    }
}
