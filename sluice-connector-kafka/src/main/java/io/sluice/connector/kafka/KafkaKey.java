package io.sluice.connector.kafka;

import java.io.Serializable;

/** The key bytes of the Kafka record written for a value ({@code null}: no key; the partitioner spreads those). */
@FunctionalInterface
public interface KafkaKey<T> extends Serializable {
    byte[] keyOf(T value) throws Exception;
}
