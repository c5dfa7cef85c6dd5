/**
 * Record formats of the Kafka connector: how the bytes of a Kafka record's key and value become a
 * record of the job and back ({@link io.sluice.connector.kafka.format.Format}: bytes, UTF-8 strings,
 * JSON through Jackson), and what happens to a record that does not deserialize
 * ({@link io.sluice.connector.kafka.format.DeserializationErrorPolicy}: fail, skip and count, or a side output).
 *
 * <p>The lower layer of sluice-connector-kafka: uses only sluice-core's public API
 * ({@code api.functions}), Jackson and the JDK; never {@code io.sluice.connector.kafka}.
 */
package io.sluice.connector.kafka.format;
