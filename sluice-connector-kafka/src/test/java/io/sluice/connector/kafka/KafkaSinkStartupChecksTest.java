package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The transaction timeout rules the sink checks at start, and what their messages tell to change. */
class KafkaSinkStartupChecksTest {
    @Test
    void aTimeoutShorterThanTheCheckpointIntervalPlusTheRestartDelayIsRefused() {
        assertThatThrownBy(() -> KafkaSinkStartupChecks.checkTransactionTimeout("Kafka sink (1/1)",
                Duration.ofSeconds(30), 900_000, Duration.ofSeconds(10), Duration.ofMinutes(1)))
                .isInstanceOf(KafkaSinkException.class)
                .hasMessageContaining("checkpoint interval (10000 ms) plus the restart strategy's longest delay (60000 ms)")
                .hasMessageContaining("to at least 70000 ms").hasMessageContaining("aborted by the broker and written");
    }

    @Test
    void aTimeoutAboveTheBrokerMaximumIsRefused() {
        assertThatThrownBy(() -> KafkaSinkStartupChecks.checkTransactionTimeout("Kafka sink (1/1)",
                Duration.ofMinutes(20), 900_000, Duration.ofSeconds(10), Duration.ofMinutes(1)))
                .hasMessageContaining("above the brokers' transaction.max.timeout.ms (900000 ms)")
                .hasMessageContaining("raise transaction.max.timeout.ms on the brokers");
    }

    @Test
    void theDefaultTimeoutFitsTheDefaults() {
        assertThatCode(() -> KafkaSinkStartupChecks.checkTransactionTimeout("Kafka sink (1/1)",
                KafkaSink.DEFAULT_TRANSACTION_TIMEOUT, 900_000, Duration.ofSeconds(10), Duration.ofSeconds(66)))
                .doesNotThrowAnyException();
    }

    @Test
    void exactlyOnceWithoutAPrefixIsRefusedWhenTheJobIsBuilt() {
        assertThatThrownBy(() -> KafkaSink.<String>builder().bootstrapServers("b:9092").topic("t")
                .valueFormat(io.sluice.connector.kafka.format.Formats.strings()).build())
                .hasMessageContaining("exactly-once needs a transactional-id prefix");
    }
}
