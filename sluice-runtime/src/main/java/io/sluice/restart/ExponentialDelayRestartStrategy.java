package io.sluice.restart;

import io.sluice.config.Durations;
import io.sluice.config.RestartStrategyConfig.ExponentialDelay;
import io.sluice.util.Clock;
import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Restarts forever with a growing wait: {@code initial}, then {@code multiplier} times the previous
 * wait after each failure, capped at {@code max}. When the job has run for {@code resetAfter}
 * since its last restart (that is, since the last failure plus its backoff) without failing, the
 * next wait starts from {@code initial} again. Each wait is then varied by a random fraction of
 * itself within {@code ± jitter}, and clamped to {@code max}, so that many jobs failing together do
 * not restart in step. The random source is injected so tests are deterministic.
 *
 * <p>Not thread-safe: JobMaster main thread only.
 */
public final class ExponentialDelayRestartStrategy implements RestartStrategy {
    private final ExponentialDelay config;
    private final Clock clock;
    private final RandomGenerator random;
    private final long maxNanos;

    private int failures;
    /** The unjittered wait decided at the latest failure; 0 before the first. */
    private long baseNanos;
    /** The jittered wait returned by {@link #backoff()}. */
    private long backoffNanos;
    private long lastFailureNanos;

    public ExponentialDelayRestartStrategy(ExponentialDelay config, Clock clock, RandomGenerator random) {
        this.config = config;
        this.clock = clock;
        this.random = random;
        this.maxNanos = config.max().toNanos();
        this.backoffNanos = config.initial().toNanos();
    }

    @Override
    public void notifyFailure(Throwable cause) {
        long now = clock.nanoTime();
        boolean quietLongEnough = now - (lastFailureNanos + backoffNanos) >= config.resetAfter().toNanos();
        if (failures == 0 || quietLongEnough) {
            baseNanos = config.initial().toNanos();
        } else {
            baseNanos = (long) Math.min((double) maxNanos, baseNanos * config.multiplier());
        }
        double factor = 1.0 + config.jitter() * (2.0 * random.nextDouble() - 1.0);
        backoffNanos = Math.max(0L, Math.min(maxNanos, Math.round(baseNanos * factor)));
        lastFailureNanos = now;
        failures++;
    }

    /** Always true: this strategy never gives up. */
    @Override
    public boolean canRestart() {
        return true;
    }

    /** The wait decided at the latest failure; {@code initial} before the first failure. */
    @Override
    public Duration backoff() {
        return Duration.ofNanos(backoffNanos);
    }

    @Override
    public String describe() {
        return "exponential delay: failure " + failures + ", backoff " + Durations.format(backoff())
                + " (initial " + Durations.format(config.initial()) + ", max " + Durations.format(config.max()) + ")";
    }
}
