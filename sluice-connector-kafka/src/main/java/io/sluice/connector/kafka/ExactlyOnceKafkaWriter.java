package io.sluice.connector.kafka;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.SinkWriter;
import io.sluice.core.serialization.DataOutputBuffer;
import java.util.List;

/**
 * Exactly-once Kafka writer: serializes each record into the batch of the current checkpoint; at the
 * barrier the batch becomes a {@link KafkaCommittable} (an empty one at most every 3 s without records, to
 * keep the commit marker's time fresh for the prefix-clash check of other jobs). It never talks to Kafka (the committer does), so
 * records and checkpoints go on while the broker is away; the pending batches wait in the checkpoints.
 * Task thread only.
 */
final class ExactlyOnceKafkaWriter<T> implements SinkWriter<T, KafkaCommittable> {
    private final KafkaSink<T> sink;
    private final int subtask;
    private final String jobId;
    private DataOutputBuffer batch = new DataOutputBuffer(4096);
    private int count;
    private long lastCheckpointId;
    private long lastCommittableAtNanos = System.nanoTime();
    /**
     * Without records, a checkpoint still yields an empty committable (a transaction with only the commit
     * marker) when the last one is this old: the marker's time shows other jobs that this one runs.
     */
    static final long HEARTBEAT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(3);

    ExactlyOnceKafkaWriter(KafkaSink<T> sink, RuntimeContext context) {
        this.sink = sink;
        this.subtask = context.subtaskIndex();
        this.jobId = context.jobId();
    }

    @Override
    public void write(T value) throws Exception {
        batch.writeBytes(sink.key == null ? null : sink.key.keyOf(value));
        batch.writeBytes(sink.valueFormat.encode(value));
        count++;
    }

    /** The input ended: the rest is committed under the id after the last checkpoint's (the marker stays job-scoped). */
    @Override
    public List<KafkaCommittable> endOfInput() {
        return preCommit(lastCheckpointId + 1);
    }

    @Override
    public List<KafkaCommittable> preCommit(long checkpointId) {
        lastCheckpointId = checkpointId;
        long now = System.nanoTime();
        if (count == 0 && now - lastCommittableAtNanos < HEARTBEAT_NANOS) {
            return List.of();
        }
        lastCommittableAtNanos = now;
        KafkaCommittable c = new KafkaCommittable(subtask, checkpointId, jobId, count, batch.toByteArray());
        batch = new DataOutputBuffer(Math.max(4096, Math.min(c.batch().length, 1 << 20)));
        count = 0;
        return List.of(c);
    }
}
