package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.RestartStrategyConfig.FailureRate;
import io.sluice.util.ManualClock;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FailureRateRestartStrategyTest {
    private static final RuntimeException FAILURE = new RuntimeException("task failed");
    private final ManualClock clock = new ManualClock();
    private final RestartStrategy strategy = new FailureRateRestartStrategy(
            new FailureRate(3, Duration.ofMinutes(1), Duration.ofSeconds(2)), clock);

    @Test
    void givesUpWhenMoreThanMaxFailuresFallWithinTheInterval() {
        for (int i = 0; i < 3; i++) {
            strategy.notifyFailure(FAILURE);
            assertThat(strategy.canRestart()).isTrue();
            assertThat(strategy.backoff()).isEqualTo(Duration.ofSeconds(2));
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(strategy.describe()).isEqualTo("failure rate: 3 of at most 3 failures within 1 min, 2 s");

        strategy.notifyFailure(FAILURE);

        assertThat(strategy.canRestart()).isFalse();
        assertThat(strategy.describe()).isEqualTo("failure rate: gave up, 4 failures within 1 min (at most 3 allowed)");
    }

    @Test
    void windowSlidesSoOldFailuresStopCounting() {
        strategy.notifyFailure(FAILURE); // t = 0
        clock.advance(Duration.ofSeconds(30));
        strategy.notifyFailure(FAILURE); // t = 30 s
        strategy.notifyFailure(FAILURE); // t = 30 s
        clock.advance(Duration.ofSeconds(30));
        strategy.notifyFailure(FAILURE); // t = 60 s: the failure at 0 is exactly one interval old, out

        assertThat(strategy.canRestart()).isTrue();
        assertThat(strategy.describe()).startsWith("failure rate: 3 of at most 3");

        clock.advance(Duration.ofSeconds(29));
        strategy.notifyFailure(FAILURE); // t = 89 s: failures at 30, 30, 60, 89 are within one minute

        assertThat(strategy.canRestart()).isFalse();
    }

    @Test
    void givingUpIsFinalEvenAfterAQuietPeriod() {
        for (int i = 0; i < 4; i++) {
            strategy.notifyFailure(FAILURE);
        }
        clock.advance(Duration.ofHours(1));

        assertThat(strategy.canRestart()).isFalse();
    }
}
