package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.config.RestartStrategyConfig.ExponentialDelay;
import io.sluice.util.ManualClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class ExponentialDelayRestartStrategyTest {
    private static final RuntimeException FAILURE = new RuntimeException("task failed");
    private final ManualClock clock = new ManualClock();

    @Test
    void backoffGrowsByTheMultiplierUpToMaxAndNeverGivesUp() {
        RestartStrategy strategy = strategy(Duration.ofMillis(100), Duration.ofSeconds(1), 2.0, 0.0, fixed(0.5));

        List<Duration> backoffs = failImmediatelyAfterEachRestart(strategy, 7);

        assertThat(backoffs).containsExactly(ms(100), ms(200), ms(400), ms(800), ms(1000), ms(1000), ms(1000));
        assertThat(strategy.canRestart()).isTrue();
        assertThat(strategy.describe()).isEqualTo("exponential delay: failure 7, backoff 1 s (initial 100 ms, max 1 s)");
    }

    @Test
    void resetsToInitialAfterRunningForResetAfterSinceTheLastRestart() {
        RestartStrategy strategy = strategy(Duration.ofMillis(100), Duration.ofSeconds(30), 2.0, 0.0, fixed(0.5));
        failImmediatelyAfterEachRestart(strategy, 3); // 100, 200, 400 ms; the clock is now at the last restart

        clock.advance(Duration.ofMinutes(1).minusMillis(1));
        strategy.notifyFailure(FAILURE);
        assertThat(strategy.backoff()).as("one ms short of the quiet period").isEqualTo(ms(800));

        clock.advance(ms(800).plus(Duration.ofMinutes(1)));
        strategy.notifyFailure(FAILURE);
        assertThat(strategy.backoff()).as("after a full quiet period").isEqualTo(ms(100));

        clock.advance(ms(100));
        strategy.notifyFailure(FAILURE);
        assertThat(strategy.backoff()).isEqualTo(ms(200));
    }

    @Test
    void jitterVariesTheBackoffWithinTheFractionUsingTheInjectedRandom() {
        RestartStrategy low = strategy(Duration.ofSeconds(1), Duration.ofSeconds(30), 2.0, 0.1, fixed(0.0));
        RestartStrategy high = strategy(Duration.ofSeconds(1), Duration.ofSeconds(30), 2.0, 0.1, fixed(0.75));

        assertThat(failImmediatelyAfterEachRestart(low, 3)).containsExactly(ms(900), ms(1800), ms(3600));
        assertThat(failImmediatelyAfterEachRestart(high, 3)).containsExactly(ms(1050), ms(2100), ms(4200));
    }

    @Test
    void jitteredBackoffNeverExceedsMax() {
        RestartStrategy strategy = strategy(Duration.ofSeconds(1), Duration.ofSeconds(2), 2.0, 0.5, fixed(0.99));

        assertThat(failImmediatelyAfterEachRestart(strategy, 3)).allSatisfy(d -> assertThat(d).isLessThanOrEqualTo(ms(2000)));
    }

    @Test
    void sameSeedGivesTheSameSequence() {
        List<Duration> first = failImmediatelyAfterEachRestart(
                strategy(Duration.ofMillis(100), Duration.ofSeconds(30), 2.0, 0.3, new Random(42)), 6);
        List<Duration> second = failImmediatelyAfterEachRestart(
                strategy(Duration.ofMillis(100), Duration.ofSeconds(30), 2.0, 0.3, new Random(42)), 6);

        assertThat(first).isEqualTo(second).doesNotHaveDuplicates();
    }

    private RestartStrategy strategy(Duration initial, Duration max, double multiplier, double jitter, RandomGenerator random) {
        return new ExponentialDelayRestartStrategy(
                new ExponentialDelay(initial, max, multiplier, Duration.ofMinutes(1), jitter), clock, random);
    }

    /** Fails, waits the backoff, and fails again right after the restart, {@code n} times. */
    private List<Duration> failImmediatelyAfterEachRestart(RestartStrategy strategy, int n) {
        List<Duration> backoffs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            strategy.notifyFailure(FAILURE);
            assertThat(strategy.canRestart()).isTrue();
            backoffs.add(strategy.backoff());
            clock.advance(strategy.backoff());
        }
        return backoffs;
    }

    /** A generator whose nextDouble() is always {@code value}: 0.0 is -jitter, 0.5 none, 1.0 +jitter. */
    private static RandomGenerator fixed(double value) {
        return new RandomGenerator() {
            @Override
            public long nextLong() {
                throw new UnsupportedOperationException("only nextDouble() is expected");
            }

            @Override
            public double nextDouble() {
                return value;
            }
        };
    }

    private static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }
}
