package io.sluice.compare.flink;

import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;

/**
 * What the Kafka sink's builder gets besides the settings every connector version has, for
 * flink-connector-kafka 3.x (Flink 1.20): nothing; this version has one transaction naming strategy
 * (a new transactional id per checkpoint and subtask, recycled producers).
 */
final class SinkTuning {
    static final String DESCRIPTION = "transactional ids: the connector's only strategy in 3.x (one per checkpoint"
            + " and subtask)";

    private SinkTuning() {}

    static <T> KafkaSinkBuilder<T> apply(KafkaSinkBuilder<T> builder) {
        return builder;
    }
}
