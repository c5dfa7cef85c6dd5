package io.sluice.restart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.RestartStrategyConfig.FixedDelay;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FixedDelayRestartStrategyTest {
    private static final RuntimeException FAILURE = new RuntimeException("task failed");

    @Test
    void restartsUpToMaxAttemptsWithTheSameDelayThenGivesUp() {
        RestartStrategy strategy = new FixedDelayRestartStrategy(new FixedDelay(3, Duration.ofSeconds(1)));

        for (int attempt = 1; attempt <= 3; attempt++) {
            strategy.notifyFailure(FAILURE);
            assertThat(strategy.canRestart()).as("after failure %d", attempt).isTrue();
            assertThat(strategy.backoff()).isEqualTo(Duration.ofSeconds(1));
            assertThat(strategy.describe()).isEqualTo("fixed delay: attempt " + attempt + " of 3, 1 s");
        }
        strategy.notifyFailure(FAILURE);

        assertThat(strategy.canRestart()).isFalse();
        assertThat(strategy.describe()).isEqualTo("fixed delay: gave up after 3 restart attempt(s)");
        assertThatThrownBy(strategy::backoff).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("check canRestart() first");
    }

    @Test
    void zeroAttemptsGivesUpAtTheFirstFailure() {
        RestartStrategy strategy = new FixedDelayRestartStrategy(new FixedDelay(0, Duration.ZERO));
        assertThat(strategy.canRestart()).isTrue();

        strategy.notifyFailure(FAILURE);

        assertThat(strategy.canRestart()).isFalse();
    }
}
