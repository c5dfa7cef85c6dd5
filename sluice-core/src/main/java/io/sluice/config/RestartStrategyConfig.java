package io.sluice.config;

import java.io.Serializable;
import java.time.Duration;

/**
 * The restart strategy a job was submitted with: plain, validated values that travel with the job
 * graph. The runtime turns them into a stateful strategy. Immutable and thread-safe.
 */
public sealed interface RestartStrategyConfig extends Serializable {

    /**
     * The longest this strategy waits before a restart: the fixed delay, the exponential cap (plus its
     * jitter), or zero when it never restarts.
     */
    default java.time.Duration maxDelay() {
        if (this instanceof FixedDelay f) {
            return f.delay();
        }
        if (this instanceof ExponentialDelay e) {
            return java.time.Duration.ofMillis((long) Math.ceil(e.max().toMillis() * (1 + e.jitter())));
        }
        if (this instanceof FailureRate r) {
            return r.delay();
        }
        return java.time.Duration.ZERO;
    }

    /** The strategy of a job that sets none: the defaults of {@link RestartOptions} (exponential delay). */
    static RestartStrategyConfig defaults() {
        return fromConfiguration(new Configuration());
    }

    /** Reads {@link RestartOptions#STRATEGY} and the options of the chosen strategy. */
    static RestartStrategyConfig fromConfiguration(Configuration config) {
        RestartStrategyType type = config.get(RestartOptions.STRATEGY);
        try {
            return switch (type) {
                case NONE -> new NoRestart();
                case FIXED_DELAY -> new FixedDelay(
                        config.get(RestartOptions.FIXED_DELAY_ATTEMPTS),
                        config.get(RestartOptions.FIXED_DELAY_DELAY));
                case EXPONENTIAL_DELAY -> new ExponentialDelay(
                        config.get(RestartOptions.EXPONENTIAL_DELAY_INITIAL),
                        config.get(RestartOptions.EXPONENTIAL_DELAY_MAX),
                        config.get(RestartOptions.EXPONENTIAL_DELAY_MULTIPLIER),
                        config.get(RestartOptions.EXPONENTIAL_DELAY_RESET_AFTER),
                        config.get(RestartOptions.EXPONENTIAL_DELAY_JITTER));
                case FAILURE_RATE -> new FailureRate(
                        config.get(RestartOptions.FAILURE_RATE_MAX_FAILURES),
                        config.get(RestartOptions.FAILURE_RATE_INTERVAL),
                        config.get(RestartOptions.FAILURE_RATE_DELAY));
            };
        } catch (IllegalConfigurationException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            // Single values were checked by their options; what remains are combinations.
            throw new IllegalConfigurationException("Invalid settings for restart-strategy "
                    + OptionType.enumValueName(type) + ": " + e.getMessage(), e);
        }
    }

    /** Never restart: the first failure fails the job. */
    record NoRestart() implements RestartStrategyConfig {}

    /** Restart up to {@code maxAttempts} times, waiting {@code delay} before each restart. */
    record FixedDelay(int maxAttempts, Duration delay) implements RestartStrategyConfig {
        public FixedDelay {
            requireNotNegative(maxAttempts, "maxAttempts");
            requireNotNegative(delay, "delay");
        }
    }

    /**
     * Restart forever, waiting {@code initial}, then {@code multiplier} times longer after each
     * failure up to {@code max}; start from {@code initial} again after {@code resetAfter} without
     * failures. Each wait is varied randomly by up to {@code jitter} (a fraction) of itself.
     */
    record ExponentialDelay(Duration initial, Duration max, double multiplier, Duration resetAfter, double jitter)
            implements RestartStrategyConfig {
        public ExponentialDelay {
            requirePositive(initial, "initial");
            requirePositive(max, "max");
            requirePositive(resetAfter, "resetAfter");
            if (initial.compareTo(max) > 0) {
                throw new IllegalArgumentException("initial backoff " + Durations.format(initial)
                        + " is larger than max backoff " + Durations.format(max) + "; raise max or lower initial");
            }
            if (!(multiplier >= 1.0) || !Double.isFinite(multiplier)) {
                throw new IllegalArgumentException("multiplier must be a finite number of at least 1.0, but is " + multiplier);
            }
            if (!(jitter >= 0.0 && jitter <= 1.0)) {
                throw new IllegalArgumentException("jitter must be between 0.0 and 1.0, but is " + jitter);
            }
        }
    }

    /**
     * Restart, waiting {@code delay} each time, as long as no more than {@code maxFailures}
     * failures happen within any window of length {@code interval}.
     */
    record FailureRate(int maxFailures, Duration interval, Duration delay) implements RestartStrategyConfig {
        public FailureRate {
            requireNotNegative(maxFailures, "maxFailures");
            requirePositive(interval, "interval");
            requireNotNegative(delay, "delay");
        }
    }

    private static void requireNotNegative(int value, String name) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be zero or positive, but is " + value);
        }
    }

    private static void requireNotNegative(Duration value, String name) {
        if (value == null || value.isNegative()) {
            throw new IllegalArgumentException(name + " must be a zero or positive duration, but is " + value);
        }
    }

    private static void requirePositive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration, but is " + value);
        }
    }
}
