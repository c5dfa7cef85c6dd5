package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.config.RestartStrategyConfig.ExponentialDelay;
import io.sluice.config.RestartStrategyConfig.FailureRate;
import io.sluice.config.RestartStrategyConfig.FixedDelay;
import io.sluice.config.RestartStrategyConfig.NoRestart;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RestartStrategyConfigTest {

    @Test
    void defaultIsUnlimitedExponentialDelayWithJitterAndReset() {
        ExponentialDelay expected = new ExponentialDelay(Duration.ofSeconds(1), Duration.ofMinutes(1), 2.0,
                Duration.ofMinutes(10), 0.1);
        assertThat(RestartStrategyConfig.fromConfiguration(new Configuration())).isEqualTo(expected);
        assertThat(RestartStrategyConfig.defaults()).isEqualTo(expected);
        assertThat(io.sluice.api.StreamExecutionEnvironment.create().jobConfig().restartStrategy())
                .as("a job that sets no strategy").isEqualTo(expected);
    }

    @Test
    void fixedDelayKeepsItsDefaultValues() {
        assertThat(RestartStrategyConfig.fromConfiguration(new Configuration(Map.of("restart-strategy", "fixed-delay"))))
                .isEqualTo(new FixedDelay(10, Duration.ofSeconds(1)));
    }

    @Test
    void readsEachStrategyFromItsOptions() {
        assertThat(RestartStrategyConfig.fromConfiguration(new Configuration(Map.of("restart-strategy", "none"))))
                .isEqualTo(new NoRestart());
        assertThat(RestartStrategyConfig.fromConfiguration(new Configuration(Map.of(
                        "restart-strategy", "exponential-delay",
                        "restart-strategy.exponential-delay.initial", "50 ms",
                        "restart-strategy.exponential-delay.max", "5 s",
                        "restart-strategy.exponential-delay.multiplier", "1.5",
                        "restart-strategy.exponential-delay.reset-after", "10 min",
                        "restart-strategy.exponential-delay.jitter", "0"))))
                .isEqualTo(new ExponentialDelay(Duration.ofMillis(50), Duration.ofSeconds(5), 1.5,
                        Duration.ofMinutes(10), 0.0));
        assertThat(RestartStrategyConfig.fromConfiguration(new Configuration(Map.of(
                        "restart-strategy", "failure-rate",
                        "restart-strategy.failure-rate.max-failures", "5",
                        "restart-strategy.failure-rate.interval", "5 min"))))
                .isEqualTo(new FailureRate(5, Duration.ofMinutes(5), Duration.ofSeconds(1)));
    }

    @Test
    void badValueOfTheChosenStrategyNamesItsKey() {
        Configuration config = new Configuration(Map.of(
                "restart-strategy", "fixed-delay", "restart-strategy.fixed-delay.delay", "abc"));

        assertThatThrownBy(() -> RestartStrategyConfig.fromConfiguration(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Invalid value 'abc' for restart-strategy.fixed-delay.delay:"
                        + " expected a duration such as 500 ms, 10 s or 1 min");
    }

    @Test
    void inconsistentCombinationNamesTheStrategyAndBothValues() {
        Configuration config = new Configuration(Map.of(
                "restart-strategy", "exponential-delay",
                "restart-strategy.exponential-delay.initial", "1 min",
                "restart-strategy.exponential-delay.max", "30 s"));

        assertThatThrownBy(() -> RestartStrategyConfig.fromConfiguration(config))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Invalid settings for restart-strategy exponential-delay: initial backoff 1 min"
                        + " is larger than max backoff 30 s; raise max or lower initial");
    }

    @Test
    void constructorsRejectInvalidValues() {
        assertThatThrownBy(() -> new FixedDelay(-1, Duration.ZERO)).hasMessage("maxAttempts must be zero or positive, but is -1");
        assertThatThrownBy(() -> new FixedDelay(1, Duration.ofSeconds(-1)))
                .hasMessageContaining("delay must be a zero or positive duration");
        assertThatThrownBy(() -> new ExponentialDelay(Duration.ofSeconds(1), Duration.ofSeconds(2), 0.5, Duration.ofMinutes(1), 0))
                .hasMessage("multiplier must be a finite number of at least 1.0, but is 0.5");
        assertThatThrownBy(() -> new ExponentialDelay(Duration.ofSeconds(1), Duration.ofSeconds(2), 2, Duration.ofMinutes(1), -0.1))
                .hasMessage("jitter must be between 0.0 and 1.0, but is -0.1");
        assertThatThrownBy(() -> new ExponentialDelay(Duration.ZERO, Duration.ofSeconds(2), 2, Duration.ofMinutes(1), 0))
                .hasMessageContaining("initial must be a positive duration");
        assertThatThrownBy(() -> new FailureRate(3, Duration.ZERO, Duration.ZERO))
                .hasMessageContaining("interval must be a positive duration");
    }

    @Test
    void survivesJavaSerialization() throws Exception {
        RestartStrategyConfig original = new ExponentialDelay(Duration.ofMillis(100), Duration.ofSeconds(30), 2.0,
                Duration.ofMinutes(1), 0.1);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(original);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            assertThat(in.readObject()).isEqualTo(original);
        }
    }
}
