/**
 * The Kafka connector: {@link io.sluice.connector.kafka.KafkaSource} (topics or a pattern, partitions
 * spread over subtasks and discovered while running, offsets in checkpoints, {@code read_committed} by
 * default, record timestamps and per-partition watermarks) and {@link io.sluice.connector.kafka.KafkaSink}
 * ({@code exactly-once} on the two-phase-commit sink contract, or {@code at-least-once}). See docs/kafka.md.
 *
 * <p>The upper layer of sluice-connector-kafka: uses {@code io.sluice.connector.kafka.format}, sluice-core's
 * public API ({@code api.*}, {@code operators.Output}, {@code core.serialization}, {@code util}) and
 * kafka-clients; never sluice-runtime (the runtime does not know this module either).
 */
package io.sluice.connector.kafka;
