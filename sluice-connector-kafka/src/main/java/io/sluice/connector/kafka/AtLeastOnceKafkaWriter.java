package io.sluice.connector.kafka;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.SinkWriter;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * At-least-once Kafka writer: sends each record at once through an idempotent producer; at each barrier
 * flushes and fails the checkpoint if a send failed, so everything before a completed checkpoint is
 * written. Task thread only (the send callbacks only record the first error).
 */
final class AtLeastOnceKafkaWriter<T> implements SinkWriter<T, KafkaCommittable> {
    private final KafkaSink<T> sink;
    private final String name;
    private final KafkaProducer<byte[], byte[]> producer;
    private volatile Exception sendError;

    AtLeastOnceKafkaWriter(KafkaSink<T> sink, RuntimeContext context) {
        this.sink = sink;
        this.name = sink.describe(context);
        this.producer = new KafkaProducer<>(sink.producerProperties("sluice-sink-" + context.subtaskIndex()));
    }

    @Override
    public void write(T value) throws Exception {
        checkSendError();
        byte[] key = sink.key == null ? null : sink.key.keyOf(value);
        producer.send(new ProducerRecord<>(sink.topic, key, sink.valueFormat.encode(value)), (md, e) -> {
            if (e != null && sendError == null) {
                sendError = e;
            }
        });
    }

    @Override
    public List<KafkaCommittable> preCommit(long checkpointId) throws Exception {
        producer.flush();
        checkSendError();
        return List.of();
    }

    private void checkSendError() throws Exception {
        Exception e = sendError;
        if (e != null) {
            throw new KafkaSinkException(name + ": a record could not be written (" + e + "); the task restarts and"
                    + " writes the records since the last checkpoint again", e);
        }
    }

    @Override
    public void close() {
        KafkaClients.closeUninterrupted(() -> producer.close(Duration.ofSeconds(5)));
    }
}
