package io.sluice.connector.kafka;

import io.sluice.core.serialization.DataInputBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transactional id ({@code <prefix>-<subtask>-e<k>}) into whose transaction an exactly-once writer
 * sends records while they arrive, so that the commit after the checkpoint only has to end the
 * transaction: the fast path of the Kafka sink. The records are in the checkpoint as well (the
 * {@link KafkaCommittable}'s batch), so whatever happens to this transaction (a failed send, a broker
 * that aborted it, a crash) the committer fences the id and writes the batch again through the
 * subtask's own id: nothing depends on resuming a producer's transaction.
 *
 * <p>Life cycle, one transaction per <em>generation</em>: {@code FREE} → the writer {@linkplain #begin
 * begins} a transaction ({@code WRITING}, the generation goes up) → at the barrier it {@linkplain
 * #precommit hands it over} ({@code PRECOMMITTED}) → the committer {@linkplain #commit commits} it
 * ({@code FREE}) or, when it cannot, fences the id, which aborts or completes whatever it holds, with a
 * new producer ({@code FENCING} → {@code FREE}, the generation goes up, so a committable of the old
 * generation is never committed through it again).
 *
 * <p>Threading: {@code WRITING} belongs to the writer's task thread ({@link #begin}, {@link #handOver},
 * {@link #precommit}), which never calls Kafka: it hands chunks of records to the writer's sender thread,
 * which sends them, in order; {@code PRECOMMITTED} and {@code FENCING} belong to the commit thread
 * ({@link #commit}, {@link #fence}), which waits for the sender to have sent everything of the
 * transaction. The hand-overs go through this object's lock, never held while Kafka is called. Send
 * callbacks (the producer's I/O thread) only record errors and acknowledged bytes.
 */
final class TransactionSlot {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionSlot.class);

    enum State { FREE, WRITING, PRECOMMITTED, FENCING, CLOSED }

    /** Creates a producer for a transactional id and runs {@code initTransactions} (which fences older ones). */
    @FunctionalInterface
    interface ProducerFactory {
        KafkaProducer<byte[], byte[]> create(String transactionalId) throws Exception;
    }

    private final String transactionalId;
    private final String topic;
    private final ProducerFactory factory;
    /** Beyond this many bytes handed over and not yet acknowledged the writer stops sending: nothing may block it. */
    private final long maxPendingBytes;
    /** The writer's sender thread: it sends the handed-over chunks, in order. */
    private final Executor sender;
    /** How long a commit waits for the sender to have sent everything of its transaction before it gives up on it. */
    private final Duration drainTimeout;

    /** Written under the lock; volatile for the sender thread. */
    private volatile KafkaProducer<byte[], byte[]> producer;
    private State state = State.FENCING;
    /** Written under the lock; volatile for the send callbacks, which ignore an older generation's records. */
    private volatile long generation;
    /** Set by the writer when it stopped sending before the barrier: this transaction must never be committed. */
    private volatile boolean abandoned;
    private final AtomicReference<Exception> sendError = new AtomicReference<>();
    /** Bytes handed to the sender and not sent yet; bytes of keys and values sent (sender thread), and acknowledged. */
    private final AtomicLong queuedBytes = new AtomicLong();
    private volatile long sentBytes;
    private final AtomicLong ackedBytes = new AtomicLong();
    private long sends;
    /** Completed by the sender once it sent every chunk of the precommitted transaction. */
    private CompletableFuture<Void> drained = CompletableFuture.completedFuture(null);
    /** Every this many records a send carries a callback. */
    static final int ACK_EVERY = 64;

    TransactionSlot(String transactionalId, String topic, ProducerFactory factory, long maxPendingBytes,
                    Executor sender, Duration drainTimeout) {
        this.transactionalId = transactionalId;
        this.topic = topic;
        this.factory = factory;
        this.maxPendingBytes = maxPendingBytes;
        this.sender = sender;
        this.drainTimeout = drainTimeout;
    }

    String transactionalId() {
        return transactionalId;
    }

    /**
     * Task thread: begins a transaction if the slot is free, and returns its generation; -1 if it is not
     * free (its last transaction is not committed yet, or its id is being fenced).
     */
    long begin() {
        KafkaProducer<byte[], byte[]> p;
        long began;
        synchronized (this) {
            if (state != State.FREE) {
                return -1;
            }
            state = State.WRITING;
            began = ++generation;
            abandoned = false;
            sendError.set(null);
            queuedBytes.set(0);
            sentBytes = 0;
            ackedBytes.set(0);
            p = producer;
        }
        try {
            p.beginTransaction(); // local to the client: no request to the broker
        } catch (RuntimeException e) {
            abandon("beginTransaction failed: " + e);
        }
        return began;
    }

    /**
     * Task thread, while {@code WRITING}: hands a chunk of serialized records ({@link KafkaCommittable}'s
     * batch format) to the sender thread, never blocking. Once a send failed or too many bytes wait to be
     * sent or acknowledged (a broker that does not keep up or does not answer), the slot stops sending for
     * this transaction; the committer then writes the checkpoint's batch again instead.
     */
    void handOver(byte[] chunk) {
        if (abandoned) {
            return;
        }
        Exception failed = sendError.get();
        if (failed != null) {
            abandon("a send failed: " + failed);
            return;
        }
        long pending = queuedBytes.get() + sentBytes - ackedBytes.get();
        if (pending + chunk.length > maxPendingBytes) {
            abandon(pending + " bytes wait to be sent or acknowledged");
            return;
        }
        queuedBytes.addAndGet(chunk.length);
        long ofGeneration = generation;
        sender.execute(() -> send(chunk, ofGeneration));
    }

    /** Sender thread: sends the records of one chunk into the transaction of {@code ofGeneration}. */
    private void send(byte[] chunk, long ofGeneration) {
        queuedBytes.addAndGet(-chunk.length);
        if (abandoned || ofGeneration != generation) {
            return;
        }
        KafkaProducer<byte[], byte[]> p = producer;
        DataInputBuffer in = new DataInputBuffer(chunk);
        try {
            while (in.hasRemaining() && !abandoned) {
                byte[] key = in.readBytes();
                byte[] value = in.readBytes();
                long sent = sentBytes + (key == null ? 0 : key.length) + (value == null ? 0 : value.length);
                sentBytes = sent;
                // A callback on every ACK_EVERY-th record only: it marks the bytes sent up to it as acknowledged (an
                // estimate across partitions, enough to stop in time) and records a failure early. A send without a
                // callback that fails later fails commitTransaction, so none goes unnoticed.
                Future<RecordMetadata> f = p.send(new ProducerRecord<>(topic, key, value),
                        ++sends % ACK_EVERY == 0 ? new Ack(sent, ofGeneration) : null);
                if (f.isDone()) { // failed inside send (it waited max.block.ms for metadata or buffer space)
                    f.get();
                }
            }
        } catch (Exception e) {
            sendError.compareAndSet(null, e instanceof ExecutionException && e.getCause() instanceof Exception c ? c : e);
            abandon("send failed: " + e);
        }
    }

    /** Acknowledges the bytes sent up to and including one record. Producer I/O thread. */
    private final class Ack implements org.apache.kafka.clients.producer.Callback {
        private final long sentUpTo;
        private final long ofGeneration;

        Ack(long sentUpTo, long ofGeneration) {
            this.sentUpTo = sentUpTo;
            this.ofGeneration = ofGeneration;
        }

        @Override
        public void onCompletion(RecordMetadata metadata, Exception e) {
            if (ofGeneration != generation) {
                return; // a record of an earlier transaction (its producer was closed or fenced)
            }
            if (e != null) {
                sendError.compareAndSet(null, e);
            } else {
                ackedBytes.accumulateAndGet(sentUpTo, Math::max);
            }
        }
    }

    private void abandon(String why) {
        abandoned = true;
        LOG.debug("{}: stopped writing into the open transaction ({}); its records are committed from the checkpoint",
                transactionalId, why);
    }

    /**
     * Task thread, at the barrier (after the last chunk): hands the transaction of {@code generation} over to
     * the commit thread, which commits it once the sender sent everything handed over before.
     */
    void precommit(long generation) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (this) {
            if (state != State.WRITING || this.generation != generation) {
                return;
            }
            state = State.PRECOMMITTED;
            drained = done;
        }
        try {
            sender.execute(() -> done.complete(null));
        } catch (RuntimeException e) { // the sender was shut down: the task is closing
            abandon("the sender stopped: " + e);
            done.complete(null);
        }
    }

    /**
     * Commit thread: commits the transaction of {@code generation} together with the commit marker, and
     * returns {@code true}; or, when that transaction cannot be committed (the writer abandoned it, a send
     * or the commit failed, or an earlier attempt fenced it), makes sure it never will be (fences the id;
     * throws if the broker does not answer, and the commit is retried) and returns {@code false}: the
     * caller then writes the records again.
     */
    boolean commit(long generation, Map<TopicPartition, OffsetAndMetadata> marker, ConsumerGroupMetadata group)
            throws Exception {
        KafkaProducer<byte[], byte[]> p = null;
        CompletableFuture<Void> sent;
        synchronized (this) {
            if (this.generation != generation) {
                return false; // fenced by an earlier attempt of this commit
            }
            if (state == State.PRECOMMITTED) {
                p = producer;
            }
            sent = drained;
        }
        if (p != null) {
            try {
                sent.get(drainTimeout.toMillis(), TimeUnit.MILLISECONDS);
                if (abandoned || sendError.get() != null) {
                    throw new IllegalStateException("the writer stopped sending into it (" + sendError.get() + ")");
                }
                p.sendOffsetsToTransaction(marker, group);
                p.commitTransaction();
                synchronized (this) {
                    state = State.FREE;
                }
                return true;
            } catch (Exception e) {
                LOG.info("{}: committing the open transaction failed ({}); fencing the id and writing the records"
                        + " from the checkpoint", transactionalId, e.toString());
            }
        }
        fence();
        return false;
    }

    /**
     * Any thread but the task thread while {@code WRITING}: replaces the producer by a new one whose
     * {@code initTransactions} fences the old one and aborts (or completes) its transaction. Throws if
     * the broker does not answer; the slot then stays {@code FENCING} and the next call tries again.
     */
    void fence() throws Exception {
        KafkaProducer<byte[], byte[]> old;
        synchronized (this) {
            if (state == State.CLOSED) {
                throw new IllegalStateException(transactionalId + " is closed");
            }
            state = State.FENCING;
            old = producer;
            producer = null;
        }
        if (old != null) {
            closeQuietly(old);
        }
        KafkaProducer<byte[], byte[]> fresh = factory.create(transactionalId);
        synchronized (this) {
            if (state == State.CLOSED) {
                closeQuietly(fresh);
                return;
            }
            producer = fresh;
            generation++;
            state = State.FREE;
        }
    }

    /**
     * Closes the producer; a transaction still open is aborted first when {@code abort} (bounded by the
     * producer's {@code max.block.ms}), so that {@code read_committed} readers do not wait for its timeout.
     */
    void close(boolean abort) {
        KafkaProducer<byte[], byte[]> p;
        boolean open;
        synchronized (this) {
            open = state == State.WRITING || state == State.PRECOMMITTED;
            p = producer;
            producer = null;
            state = State.CLOSED;
        }
        if (p == null) {
            return;
        }
        if (open && abort) {
            try {
                p.abortTransaction();
            } catch (RuntimeException e) {
                LOG.debug("{}: aborting the open transaction at close failed ({}); the next start fences it",
                        transactionalId, e.toString());
            }
        }
        closeQuietly(p);
    }

    private void closeQuietly(KafkaProducer<byte[], byte[]> p) {
        try {
            KafkaClients.closeUninterrupted(() -> p.close(Duration.ZERO));
        } catch (RuntimeException e) {
            LOG.debug("{}: closing a producer failed", transactionalId, e);
        }
    }

    @Override
    public String toString() {
        return transactionalId;
    }
}
