package io.sluice.compare.kafka;

import java.time.Duration;

/**
 * How a harness starts its system's Kafka → keyed count → Kafka job: read {@code inputTopic} from the
 * earliest offset, key by {@link KafkaRecords#key}, count per key in keyed state, write
 * {@link KafkaRecords#output} to {@code outputTopic} exactly once with transactional ids starting with
 * {@code transactionalIdPrefix}, parallelism 2, a checkpoint every {@code checkpointInterval}. The
 * returned handle stops the job (and its cluster).
 *
 * <p>Called on the harness thread.
 */
@FunctionalInterface
public interface KafkaJobStarter {
    AutoCloseable start(String bootstrapServers, String inputTopic, String outputTopic, String transactionalIdPrefix,
                        int keys, Duration checkpointInterval) throws Exception;
}
