package io.sluice.compare.flink;

import org.apache.flink.connector.kafka.sink.KafkaSinkBuilder;
import org.apache.flink.connector.kafka.sink.TransactionNamingStrategy;

/**
 * What the Kafka sink's builder gets besides the settings every connector version has, for
 * flink-connector-kafka 4.x/5.x (Flink 2.x): {@code TransactionNamingStrategy.POOLING}, the strategy the
 * connector recommends since 4.0 (a small pool of reused transactional ids instead of a new one per
 * checkpoint, so the broker keeps no growing set of ids, and the committer reuses the writer's producer).
 */
final class SinkTuning {
    static final String DESCRIPTION = "TransactionNamingStrategy.POOLING";

    private SinkTuning() {}

    static <T> KafkaSinkBuilder<T> apply(KafkaSinkBuilder<T> builder) {
        return builder.setTransactionNamingStrategy(TransactionNamingStrategy.POOLING);
    }
}
