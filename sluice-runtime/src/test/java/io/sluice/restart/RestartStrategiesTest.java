package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.Configuration;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.random.RandomGenerator;
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
    void defaultConfigurationRestartsWithoutLimitDoublingFromOneSecondToOneMinuteAndResetsAfterTenQuietMinutes() {
        RandomGenerator half = () -> Long.MIN_VALUE; // nextDouble() == 0.5: no jitter, the unjittered waits
        RestartStrategy strategy = RestartStrategies.create(RestartStrategyConfig.defaults(), clock, half);
        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) { // a crash loop: fail right after every restart
            strategy.notifyFailure(new RuntimeException("boom " + i));
            assertThat(strategy.canRestart()).as("no attempt limit, failure " + (i + 1)).isTrue();
            waits.add(strategy.backoff());
            clock.advance(strategy.backoff());
        }
        assertThat(waits.subList(0, 8)).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2),
                Duration.ofSeconds(4), Duration.ofSeconds(8), Duration.ofSeconds(16), Duration.ofSeconds(32),
                Duration.ofMinutes(1), Duration.ofMinutes(1));
        assertThat(waits.get(999)).isEqualTo(Duration.ofMinutes(1));

        clock.advance(Duration.ofMinutes(10).minusMillis(1));
        strategy.notifyFailure(new RuntimeException("just short of the stable period"));
        assertThat(strategy.backoff()).isEqualTo(Duration.ofMinutes(1));
        clock.advance(strategy.backoff().plus(Duration.ofMinutes(10)));
        strategy.notifyFailure(new RuntimeException("after ten stable minutes"));
        assertThat(strategy.backoff()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void defaultJitterKeepsEachWaitWithinTenPercent() {
        long seed = System.nanoTime();
        System.out.println("RestartStrategiesTest seed " + seed);
        RestartStrategy strategy = RestartStrategies.create(RestartStrategyConfig.defaults(), clock, new Random(seed));
        strategy.notifyFailure(new RuntimeException("boom"));
        assertThat(strategy.backoff()).as("seed " + seed).isBetween(Duration.ofMillis(900), Duration.ofMillis(1100));
        assertThat(strategy.describe()).startsWith("exponential delay: failure 1, backoff ");
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
