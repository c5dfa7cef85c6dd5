package io.sluice.compare.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Writes the scenario's input: records with consecutive sequence numbers from 0 ({@link KafkaRecords#input}),
 * without a key (Kafka's sticky partitioner spreads them over the partitions), {@code acks=all}, idempotent.
 * First the untimed backlog as fast as the broker takes it, then timed records at a fixed rate, each stamped
 * with {@link System#nanoTime()} just before its {@code send}.
 *
 * <p>Threading: one thread (the harness thread).
 */
public final class InputProducer implements AutoCloseable {
    /** The producer's settings, for the result file's header. */
    public static final String SETTINGS = "acks=all, enable.idempotence=true, linger.ms=5, batch.size=65536,"
            + " no key (sticky partitioner), no compression";

    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private long next;

    public InputProducer(String bootstrapServers, String topic) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        this.producer = new KafkaProducer<>(p);
        this.topic = topic;
    }

    /** Records written so far (the next sequence number). */
    public long written() {
        return next;
    }

    /** Writes {@code n} untimed records and waits until the broker acknowledged all of them. */
    public void backlog(long n) throws Exception {
        List<Future<RecordMetadata>> last = new ArrayList<>();
        for (long i = 0; i < n; i++) {
            Future<RecordMetadata> f = producer.send(new ProducerRecord<>(topic, KafkaRecords.input(next++, 0)));
            if (i % 100_000 == 0) {
                last.add(f);
            }
        }
        producer.flush();
        for (Future<RecordMetadata> f : last) {
            f.get(120, TimeUnit.SECONDS); // an exception here means records of the backlog were lost
        }
    }

    /**
     * Writes {@code rate} records/s for {@code records} records, each due at its slot of the schedule and
     * stamped with the time of its send; then flushes and checks every send succeeded.
     */
    public void paced(double rate, long records) throws Exception {
        long start = System.nanoTime();
        double gapNanos = 1e9 / rate;
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (long i = 0; i < records; i++) {
            long due = start + (long) (i * gapNanos);
            long wait = due - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            sent.add(producer.send(new ProducerRecord<>(topic, KafkaRecords.input(next++, System.nanoTime()))));
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
            f.get(120, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        producer.close();
    }
}
