package io.sluice.restart;

import io.sluice.config.Durations;
import io.sluice.config.RestartStrategyConfig.FixedDelay;
import java.time.Duration;

/**
 * Restarts up to {@code maxAttempts} times, always waiting the same delay. Not thread-safe:
 * JobMaster main thread only.
 */
public final class FixedDelayRestartStrategy implements RestartStrategy {
    private final int maxAttempts;
    private final Duration delay;
    private int failures;

    public FixedDelayRestartStrategy(FixedDelay config) {
        this.maxAttempts = config.maxAttempts();
        this.delay = config.delay();
    }

    @Override
    public void notifyFailure(Throwable cause) {
        failures++;
    }

    @Override
    public boolean canRestart() {
        return failures <= maxAttempts;
    }

    @Override
    public Duration backoff() {
        if (!canRestart()) {
            throw new IllegalStateException("No backoff: " + describe() + "; check canRestart() first");
        }
        return delay;
    }

    @Override
    public String describe() {
        if (!canRestart()) {
            return "fixed delay: gave up after " + maxAttempts + " restart attempt(s)";
        }
        return "fixed delay: attempt " + failures + " of " + maxAttempts + ", " + Durations.format(delay);
    }
}
