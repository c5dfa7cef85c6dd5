package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.util.ManualClock;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RestartStrategiesTest {
    private final ManualClock clock = new ManualClock();

    @Test
    void createsTheStrategyNamedInTheConfiguration() {
        assertThat(create("none")).isInstanceOf(NoRestartStrategy.class);
        assertThat(create("fixed-delay")).isInstanceOf(FixedDelayRestartStrategy.class);
        assertThat(create("exponential-delay")).isInstanceOf(ExponentialDelayRestartStrategy.class);
        assertThat(create("failure-rate")).isInstanceOf(FailureRateRestartStrategy.class);
    }

    @Test
    void defaultConfigurationRestartsTenTimesAfterOneSecond() {
        RestartStrategy strategy = RestartStrategies.create(
                RestartStrategyConfig.fromConfiguration(new Configuration()), clock, new Random(1));

        strategy.notifyFailure(new RuntimeException("boom"));

        assertThat(strategy.describe()).isEqualTo("fixed delay: attempt 1 of 10, 1 s");
    }

    @Test
    void noRestartNeverRestarts() {
        RestartStrategy strategy = create("none");
        assertThat(strategy.canRestart()).isFalse();

        strategy.notifyFailure(new RuntimeException("boom"));

        assertThat(strategy.canRestart()).isFalse();
        assertThat(strategy.describe()).isEqualTo("no restart: failed after 1 failure(s)");
        assertThatThrownBy(strategy::backoff).isInstanceOf(IllegalStateException.class);
    }

    private RestartStrategy create(String name) {
        return RestartStrategies.create(RestartStrategyConfig.fromConfiguration(
                new Configuration(Map.of("restart-strategy", name))), clock, new Random(1));
    }
}
