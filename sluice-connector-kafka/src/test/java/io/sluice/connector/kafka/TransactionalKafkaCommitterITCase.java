package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.functions.FakeRuntimeContext;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.DataOutputBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TransactionalKafkaCommitter} against the real broker, reached through its fault proxy: one commit
 * attempt is bounded by a few {@code max.block.ms}, whatever the committable's size, when the broker goes
 * away between setting up the producer and writing the records.
 *
 * <p>The case that made {@code KafkaExactlyOnceITCase}'s proxy tests time out now and then: a producer set
 * up and used only for an empty committable (a heartbeat: only the commit marker, no record) has never
 * asked for the topic's metadata. If the broker then refuses connections, every {@code send} of the next
 * committable waits {@code max.block.ms} for that metadata and, as Kafka's producer does for any
 * {@code ApiException} in {@code send}, returns a failed future instead of throwing. The committer ignored
 * those futures, so one attempt with n records blocked n × {@code max.block.ms} (hours for a real batch)
 * before {@code commitTransaction} could fail, and the status never showed the failed commit.
 */
@org.junit.jupiter.api.extension.ExtendWith(SharedKafkaBroker.class)
class TransactionalKafkaCommitterITCase {
    private static final Duration MAX_BLOCK = Duration.ofSeconds(1);
    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    /** Counts the producer's failed sends (each one a {@code send} that waited {@code max.block.ms}). */
    public static final class FailedSends implements ProducerInterceptor<byte[], byte[]> {
        static final Map<String, AtomicInteger> PER_CLIENT = new java.util.concurrent.ConcurrentHashMap<>();
        private String clientId;

        @Override
        public void configure(Map<String, ?> configs) {
            clientId = String.valueOf(configs.get("client.id"));
        }

        @Override
        public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
            return record;
        }

        @Override
        public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
            if (exception != null) {
                PER_CLIENT.computeIfAbsent(clientId, k -> new AtomicInteger()).incrementAndGet();
            }
        }

        @Override
        public void close() {}
    }

    private static KafkaCommittable committable(int checkpointId, int records) {
        DataOutputBuffer batch = new DataOutputBuffer(256);
        for (int i = 0; i < records; i++) {
            batch.writeBytes(null);
            batch.writeBytes(("record " + i).getBytes(StandardCharsets.UTF_8));
        }
        return new KafkaCommittable(0, checkpointId, "job-1", records, batch.toByteArray());
    }

    @Test
    void aCommitWhoseProducerNeverSawTheTopicFailsAfterOneMetadataWaitWhenTheBrokerRefuses() throws Exception {
        String topic = KafkaBroker.unique("committer-out");
        String prefix = KafkaBroker.unique("committer");
        broker.createTopic(topic, 2);
        KafkaSink<String> sink = KafkaSink.<String>builder().bootstrapServers(broker.proxiedBootstrapServers())
                .topic(topic).valueFormat(Formats.strings()).transactionalIdPrefix(prefix).startupTimeout(MAX_BLOCK)
                .property("request.timeout.ms", "1000").property("delivery.timeout.ms", "2000")
                .property("interceptor.classes", FailedSends.class.getName()).build();
        int records = 40; // before the fix: 40 sends × 1 s each
        ExecutorService commitThread = Executors.newSingleThreadExecutor();
        TransactionalKafkaCommitter committer = new TransactionalKafkaCommitter(sink, new FakeRuntimeContext(0, 1));
        try {
            // A heartbeat (no records): the producer is set up and commits the marker only. Retried as the runtime
            // retries a failed commit: on a loaded machine the first marker read may outlast its timeout (CI, 2026-12-06).
            commitRetrying(committer, committable(1, 0), commitThread);

            broker.proxy().refuseConnections();
            long start = System.nanoTime();
            CompletableFuture<Void> attempt = CompletableFuture.runAsync(() -> commit(committer, committable(2, records)),
                    commitThread);
            // Bounded by the producer's own timeouts: a failed metadata wait ends the attempt (the old code went on
            // to the next record's wait, records × max.block.ms in all).
            assertThatThrownBy(() -> attempt.get(15 * MAX_BLOCK.toMillis(), TimeUnit.MILLISECONDS))
                    .hasRootCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class)
                    .hasMessageContaining("checkpoint 2").hasMessageContaining(prefix + "-0");
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            System.out.println("TransactionalKafkaCommitterITCase: the attempt failed after " + tookMillis + " ms; "
                    + FailedSends.PER_CLIENT.get(prefix + "-0") + " failed sends");
            assertThat(FailedSends.PER_CLIENT.get(prefix + "-0")).as("sends that waited max.block.ms for metadata")
                    .hasValue(1);

            broker.proxy().heal();
            commitRetrying(committer, committable(2, records), commitThread);
        } finally {
            broker.proxy().heal();
            commitThread.shutdownNow();
            committer.close();
        }
        assertThat(broker.readAll(topic, "read_committed")).hasSize(records).doesNotHaveDuplicates();
    }

    /**
     * Commits {@code c} on {@code thread}, trying again after a failure (the committer's contract: the runtime
     * retries a failed commit with backoff) until it succeeds, for at most 60 s in all.
     */
    private static void commitRetrying(TransactionalKafkaCommitter committer, KafkaCommittable c, ExecutorService thread)
            throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                CompletableFuture.runAsync(() -> commit(committer, c), thread).get(60, TimeUnit.SECONDS);
                return;
            } catch (java.util.concurrent.ExecutionException e) {
                if (!(e.getCause() instanceof KafkaSinkException) || System.nanoTime() - deadline > 0) {
                    throw e;
                }
                System.out.println("TransactionalKafkaCommitterITCase: a commit failed, trying again: " + e.getCause());
            }
        }
    }

    private static void commit(TransactionalKafkaCommitter committer, KafkaCommittable c) {
        try {
            committer.commit(c);
        } catch (Exception e) {
            throw new java.util.concurrent.CompletionException(e);
        }
    }
}
