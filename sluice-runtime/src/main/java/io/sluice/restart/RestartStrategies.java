package io.sluice.restart;

import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.RestartStrategyConfig.ExponentialDelay;
import io.sluice.config.RestartStrategyConfig.FailureRate;
import io.sluice.config.RestartStrategyConfig.FixedDelay;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import io.sluice.util.Clock;
import java.util.random.RandomGenerator;

/** Creates a fresh {@link RestartStrategy} for a job from its configuration. Stateless and thread-safe. */
public final class RestartStrategies {
    private RestartStrategies() {}

    /**
     * A new strategy with no failures recorded. {@code random} (a {@link java.util.Random} will do)
     * is used only for the jitter of the exponential-delay strategy.
     */
    public static RestartStrategy create(RestartStrategyConfig config, Clock clock, RandomGenerator random) {
        if (config instanceof NoRestart) {
            return new NoRestartStrategy();
        } else if (config instanceof FixedDelay fixed) {
            return new FixedDelayRestartStrategy(fixed);
        } else if (config instanceof ExponentialDelay exponential) {
            return new ExponentialDelayRestartStrategy(exponential, clock, random);
        } else if (config instanceof FailureRate rate) {
            return new FailureRateRestartStrategy(rate, clock);
        }
        throw new IllegalArgumentException("Unknown restart strategy configuration: " + config);
    }
}
