/**
 * The Kafka exactly-once scenario of the comparison ({@code kafka-exactly-once}), without the system under
 * test: {@link io.sluice.compare.kafka.BenchBroker} (a KRaft broker in the harness JVM),
 * {@link io.sluice.compare.kafka.InputProducer} (backlog and paced load), {@link io.sluice.compare.kafka.VisibilityConsumer}
 * (a {@code read_committed} consumer timing visibility and checking exactly-once counts),
 * {@link io.sluice.compare.kafka.KafkaRecords} (the record layout every job uses) and
 * {@link io.sluice.compare.kafka.KafkaScenario}, which runs them around a job each harness starts through
 * {@link io.sluice.compare.kafka.KafkaJobStarter}. Uses only compare-common and Kafka 4.3.1 (clients and broker).
 */
package io.sluice.compare.kafka;
