package io.sluice.connector.kafka;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.SinkWriter;
import io.sluice.core.serialization.DataOutputBuffer;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Exactly-once Kafka writer: serializes each record into the batch of the current checkpoint and sends it
 * into the open transaction of a free {@link TransactionSlot} (when one is free and the broker keeps up), in
 * chunks that a sender thread sends;
 * at the barrier the batch becomes a {@link KafkaCommittable} that names that transaction (an empty one at
 * most every 3 s without records, to keep the commit marker's time fresh for the prefix-clash check of
 * other jobs). The committer then only has to end the transaction; the batch in the checkpoint is what
 * makes the records safe: a restore, a failed send or an aborted transaction writes it again. Sends never
 * block the task thread for long, so records and checkpoints go on while the broker is away; the pending
 * batches wait in the checkpoints.
 *
 * <p>Threading: the task thread only.
 */
final class ExactlyOnceKafkaWriter<T> implements SinkWriter<T, KafkaCommittable> {
    private final KafkaSink<T> sink;
    private final int subtask;
    private final String jobId;
    private final TransactionSlots slots;
    private DataOutputBuffer batch = new DataOutputBuffer(4096);
    private int count;
    private long lastCheckpointId;
    private long lastCommittableAtNanos = System.nanoTime();
    /** The transaction the records since the last barrier went into; {@code null} before the first record. */
    private @Nullable OpenTransaction open;
    /** No slot was free at this interval's first record: its records are only in the batch. */
    private boolean noFreeSlot;
    /** How much of the batch went to the open transaction's sender already. */
    private int handedOver;
    /** Records go to the sender in chunks of about this many bytes (and the rest at the barrier). */
    static final int CHUNK_BYTES = 16 * 1024;
    /**
     * Without records, a checkpoint still yields an empty committable (a transaction with only the commit
     * marker) when the last one is this old: the marker's time shows other jobs that this one runs.
     */
    static final long HEARTBEAT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(3);

    ExactlyOnceKafkaWriter(KafkaSink<T> sink, RuntimeContext context, TransactionSlots slots) {
        this.sink = sink;
        this.subtask = context.subtaskIndex();
        this.jobId = context.jobId();
        this.slots = slots;
    }

    @Override
    public void write(T value) throws Exception {
        byte[] key = sink.key == null ? null : sink.key.keyOf(value);
        byte[] bytes = sink.valueFormat.encode(value);
        if (open == null && !noFreeSlot && count == 0) {
            open = slots.begin();
            noFreeSlot = open == null;
        }
        batch.writeBytes(key);
        batch.writeBytes(bytes);
        count++;
        if (open != null && batch.position() - handedOver >= CHUNK_BYTES) {
            handOver();
        }
    }

    /** Hands the records since the last hand-over to the open transaction's sender. */
    private void handOver() {
        if (open != null && batch.position() > handedOver) {
            open.slot().handOver(java.util.Arrays.copyOfRange(batch.array(), handedOver, batch.position()));
        }
        handedOver = batch.position();
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
        handOver();
        OpenTransaction transaction = open;
        if (transaction != null) {
            transaction.slot().precommit(transaction.generation());
        }
        KafkaCommittable c = new KafkaCommittable(subtask, checkpointId, jobId, count, batch.toByteArray(), transaction);
        batch = new DataOutputBuffer(Math.max(4096, Math.min(c.batch().length, 1 << 20)));
        count = 0;
        handedOver = 0;
        open = null;
        noFreeSlot = false;
        return List.of(c);
    }

    /** Aborts the open transactions (in the background) and closes the slots' producers. */
    @Override
    public void close() {
        slots.close();
    }
}
