package io.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigurationTest {
    private final Configuration config = new Configuration();

    @Test
    void unsetOptionsYieldTheirDefaults() {
        assertThat(config.get(CheckpointingOptions.INTERVAL)).isEqualTo(Duration.ZERO);
        assertThat(config.get(CheckpointingOptions.RETAINED)).isEqualTo(3);
        assertThat(config.get(RestartOptions.STRATEGY)).isEqualTo(RestartStrategyType.FIXED_DELAY);
        assertThat(config.get(PipelineOptions.MAX_PARALLELISM)).isEqualTo(128);
        assertThat(config.contains(CheckpointingOptions.RETAINED)).isFalse();
    }

    @Test
    void typedValuesRoundTripThroughTheStringMap() {
        config.set(CheckpointingOptions.INTERVAL, Duration.ofMillis(1500))
                .set(RestartOptions.STRATEGY, RestartStrategyType.EXPONENTIAL_DELAY)
                .set(RestartOptions.EXPONENTIAL_DELAY_JITTER, 0.25)
                .set(CheckpointingOptions.DIRECTORY, "/tmp/chk");

        assertThat(config.toMap()).containsEntry("checkpoints.interval", "1500 ms")
                .containsEntry("restart-strategy", "exponential-delay")
                .containsEntry("restart-strategy.exponential-delay.jitter", "0.25");
        assertThat(config.get(CheckpointingOptions.INTERVAL)).isEqualTo(Duration.ofMillis(1500));
        assertThat(config.get(RestartOptions.STRATEGY)).isEqualTo(RestartStrategyType.EXPONENTIAL_DELAY);
        assertThat(config.get(RestartOptions.EXPONENTIAL_DELAY_JITTER)).isEqualTo(0.25);
        assertThat(config.get(CheckpointingOptions.DIRECTORY)).isEqualTo("/tmp/chk");
    }

    @Test
    void parsesStringsOfEveryType() {
        ConfigOption<Long> longOption = ConfigOptions.key("test.long").longType().defaultValue(1L);
        ConfigOption<Boolean> boolOption = ConfigOptions.key("test.bool").booleanType().defaultValue(false);
        Configuration c = new Configuration(Map.of(
                "test.long", "9000000000", "test.bool", "TRUE", "restart-strategy", "FAILURE_RATE",
                "network.buffer-size", " 4096 ", "checkpoints.timeout", "PT30S"));

        assertThat(c.get(longOption)).isEqualTo(9_000_000_000L);
        assertThat(c.get(boolOption)).isTrue();
        assertThat(c.get(RestartOptions.STRATEGY)).isEqualTo(RestartStrategyType.FAILURE_RATE);
        assertThat(c.get(ClusterOptions.NETWORK_BUFFER_SIZE)).isEqualTo(4096);
        assertThat(c.get(CheckpointingOptions.TIMEOUT)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void unparsableDurationNamesKeyValueAndExpectedForm() {
        config.setString("restart-strategy.fixed-delay.delay", "abc");

        assertThatThrownBy(() -> config.get(RestartOptions.FIXED_DELAY_DELAY))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Invalid value 'abc' for restart-strategy.fixed-delay.delay:"
                        + " expected a duration such as 500 ms, 10 s or 1 min");
    }

    @Test
    void unparsableValuesOfOtherTypesNameKeyValueAndExpectedForm() {
        config.setString("checkpoints.retained", "three")
                .setString("restart-strategy", "sometimes")
                .setString("restart-strategy.exponential-delay.multiplier", "NaN");

        assertThatThrownBy(() -> config.get(CheckpointingOptions.RETAINED))
                .hasMessage("Invalid value 'three' for checkpoints.retained: expected an integer such as 4");
        assertThatThrownBy(() -> config.get(RestartOptions.STRATEGY))
                .hasMessage("Invalid value 'sometimes' for restart-strategy: expected one of"
                        + " none, fixed-delay, exponential-delay, failure-rate");
        assertThatThrownBy(() -> config.get(RestartOptions.EXPONENTIAL_DELAY_MULTIPLIER))
                .hasMessageContaining("'NaN' for restart-strategy.exponential-delay.multiplier: expected a number");
    }

    @Test
    void valuesViolatingConstraintsAreRejectedOnReadNamingKeyAndValue() {
        config.setString("checkpoints.retained", "0").setString("pipeline.parallelism", "-2");

        assertThatThrownBy(() -> config.get(CheckpointingOptions.RETAINED))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Invalid value '0' for checkpoints.retained: must be at least 1");
        assertThatThrownBy(() -> config.get(PipelineOptions.PARALLELISM))
                .hasMessage("Invalid value '-2' for pipeline.parallelism: must be at least 1");
    }

    @Test
    void valuesViolatingConstraintsAreRejectedOnSet() {
        assertThatThrownBy(() -> config.set(RestartOptions.EXPONENTIAL_DELAY_JITTER, 1.5))
                .hasMessage("Invalid value '1.5' for restart-strategy.exponential-delay.jitter: must be between 0.0 and 1.0");
        assertThatThrownBy(() -> config.set(CheckpointingOptions.TIMEOUT, Duration.ZERO))
                .hasMessage("Invalid value '0 ms' for checkpoints.timeout: must be positive");
        assertThat(config.contains(CheckpointingOptions.TIMEOUT)).isFalse();
    }

    @Test
    void validateReportsEveryBadValueAtOnce() {
        config.setString("checkpoints.retained", "0")
                .setString("network.buffer-size", "big")
                .setString("pipeline.parallelism", "4");

        assertThatThrownBy(() -> config.validate(List.of(
                        CheckpointingOptions.RETAINED, ClusterOptions.NETWORK_BUFFER_SIZE, PipelineOptions.PARALLELISM)))
                .isInstanceOf(IllegalConfigurationException.class)
                .hasMessage("Invalid value '0' for checkpoints.retained: must be at least 1\n"
                        + "Invalid value 'big' for network.buffer-size: expected an integer such as 4");
    }

    @Test
    void everyDeclaredDefaultPassesValidation() {
        for (Class<?> optionsClass : ConfigDocs.OPTION_CLASSES) {
            Configuration withDefaults = new Configuration();
            for (ConfigOption<?> option : ConfigOptions.declaredIn(optionsClass)) {
                withDefaults.setString(option.key(), formatDefault(option));
            }
            withDefaults.validate(ConfigOptions.declaredIn(optionsClass));
        }
    }

    @Test
    void copyIsIndependent() {
        config.set(PipelineOptions.PARALLELISM, 4);
        Configuration copy = config.copy();
        copy.set(PipelineOptions.PARALLELISM, 8);

        assertThat(config.get(PipelineOptions.PARALLELISM)).isEqualTo(4);
        assertThat(copy.get(PipelineOptions.PARALLELISM)).isEqualTo(8);
    }

    @Test
    void keysWithWhitespaceAreRejected() {
        assertThatThrownBy(() -> ConfigOptions.key("checkpoints interval"))
                .hasMessageContaining("'checkpoints interval'");
    }

    @Test
    void toStringHidesTokensSecretsAndPasswords() {
        Configuration c = new Configuration(Map.of("rest.auth.token", "t0ken-value", "s3.secret-key", "s3cret-value",
                "db.password", "pa55", "rest.port", "8081"));
        assertThat(c.toString()).doesNotContain("t0ken-value", "s3cret-value", "pa55")
                .contains("rest.auth.token=******", "rest.port=8081");
    }

    private static <T> String formatDefault(ConfigOption<T> option) {
        return option.format(option.defaultValue());
    }
}
