package io.sluice.connector.kafka;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.concurrent.Futures;
import io.sluice.core.serialization.DataInputBuffer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits {@link KafkaCommittable}s. One that comes with its {@link OpenTransaction} (the writer sent its
 * records into it while they arrived) is committed by ending that transaction, with the commit marker;
 * when that cannot be done, the slot fences its id first (so it is never committed), and the committable
 * is written again as below. Every other committable (restored from a checkpoint, or a heartbeat without
 * records): per transactional id (one per origin subtask) a producer, set up
 * with {@code initTransactions} (which fences older producers of the id and aborts or completes what they
 * left), and the id's {@link CommitMarker} read once after that. A committable the marker covers is
 * skipped; otherwise its records and the new marker go out in one transaction.
 *
 * <p>Any failure closes the id's producer, so the next attempt (the sink's commit loop retries with
 * backoff) starts from a fresh {@code initTransactions} and a fresh marker read: a commit that reached
 * the broker before the failure is then seen as done, one that did not is aborted and written again. No
 * producer internals are touched.
 *
 * <p>One attempt blocks for at most a few {@code max.block.ms} (the sink's startup timeout), whatever the
 * committable's size: {@code initTransactions}, the marker read, one wait in {@code send} (the first
 * send that fails at once ends the attempt), {@code sendOffsetsToTransaction} and {@code commitTransaction}
 * are each bounded by it. So a broker outage shows as a failed commit in status within seconds.
 *
 * <p>Threading: the sink subtask's commit thread only.
 */
final class TransactionalKafkaCommitter implements Committer<KafkaCommittable> {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionalKafkaCommitter.class);

    private final KafkaSink<?> sink;
    private final String name;
    private final TopicPartition markerPartition;
    private final Map<Integer, KafkaProducer<byte[], byte[]>> producers = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<Integer, CommitMarker> markers = new java.util.concurrent.ConcurrentHashMap<>();
    private Admin admin;
    private final java.util.concurrent.atomic.AtomicLong committedOpen = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong rewritten = new java.util.concurrent.atomic.AtomicLong();

    TransactionalKafkaCommitter(KafkaSink<?> sink, RuntimeContext context) {
        this.sink = sink;
        this.name = sink.describe(context);
        this.markerPartition = new TopicPartition(sink.topic, 0);
    }

    @Override
    public void commit(KafkaCommittable c) throws Exception {
        int origin = c.originSubtask();
        OpenTransaction open = c.openTransaction();
        if (open != null) {
            if (commitOpen(c, open)) {
                return;
            }
            closeProducer(origin); // the open transaction may have been completed: read the marker again
        }
        try {
            KafkaProducer<byte[], byte[]> producer = producerFor(origin);
            CommitMarker marker = markers.get(origin);
            if (marker.covers(c)) {
                LOG.debug("{}: checkpoint {} of subtask {} was committed before; skipped", name, c.checkpointId(), origin);
                return;
            }
            long started = System.nanoTime();
            rewritten.incrementAndGet();
            producer.beginTransaction();
            DataInputBuffer in = new DataInputBuffer(c.batch());
            for (int i = 0; i < c.recordCount(); i++) {
                byte[] key = in.readBytes();
                byte[] value = in.readBytes();
                failIfFailedAtOnce(producer.send(new ProducerRecord<>(sink.topic, key, value)));
            }
            long sent = System.nanoTime();
            long now = System.currentTimeMillis();
            String id = sink.transactionalId(origin);
            producer.sendOffsetsToTransaction(Map.of(markerPartition, CommitMarker.offsetFor(c.checkpointId(), c.jobId(), now)),
                    new ConsumerGroupMetadata(id));
            long offsets = System.nanoTime();
            producer.commitTransaction();
            markers.put(origin, new CommitMarker(c.checkpointId(), c.jobId(), now));
            if (LOG.isDebugEnabled()) {
                LOG.debug("{}: committed checkpoint {} of subtask {} ({} records, written again): sends {} ms, marker {} ms,"
                        + " commit {} ms",
                        name, c.checkpointId(), origin, c.recordCount(), (sent - started) / 1_000_000,
                        (offsets - sent) / 1_000_000, (System.nanoTime() - offsets) / 1_000_000);
            }
        } catch (Exception e) {
            closeProducer(origin);
            throw new KafkaSinkException(name + ": committing " + c + " through transactional id "
                    + sink.transactionalId(origin) + " failed (" + e + "); retried with backoff", e);
        }
    }

    /**
     * Commits the open transaction that holds {@code c}'s records already, with the marker; {@code false} if
     * it cannot be (then its id was fenced, so it never will be, and the batch is written again).
     */
    private boolean commitOpen(KafkaCommittable c, OpenTransaction open) throws KafkaSinkException {
        int origin = c.originSubtask();
        long started = System.nanoTime();
        long now = System.currentTimeMillis();
        boolean committed;
        try {
            committed = open.slot().commit(open.generation(),
                    Map.of(markerPartition, CommitMarker.offsetFor(c.checkpointId(), c.jobId(), now)),
                    new ConsumerGroupMetadata(sink.transactionalId(origin)));
        } catch (Exception e) {
            throw new KafkaSinkException(name + ": committing " + c + " through its open transaction failed, and so did"
                    + " fencing " + open.slot().transactionalId() + " to write it again (" + e + "); retried with backoff", e);
        }
        if (!committed) {
            return false;
        }
        committedOpen.incrementAndGet();
        if (markers.containsKey(origin)) {
            markers.put(origin, new CommitMarker(c.checkpointId(), c.jobId(), now));
        }
        if (LOG.isDebugEnabled()) {
            LOG.debug("{}: committed checkpoint {} of subtask {} ({} records, open transaction {}) in {} ms", name,
                    c.checkpointId(), origin, c.recordCount(), open, (System.nanoTime() - started) / 1_000_000);
        }
        return true;
    }

    /** Committables committed by ending their open transaction, and committables whose records were written again. */
    long committedOpen() {
        return committedOpen.get();
    }

    long rewritten() {
        return rewritten.get();
    }

    /**
     * Ends the attempt at the first send that failed inside {@code send}: the producer reports a wait that
     * ran out ({@code max.block.ms} for the topic's metadata or for buffer space) as a failed future, not
     * by throwing, and goes on to the next record, which would wait again: without this check one attempt
     * with n records blocked n × {@code max.block.ms} while the broker was away (for a producer that had not
     * yet fetched the topic's metadata, such as one that only committed empty heartbeats), and the failed
     * commit showed in status only hours later. Sends that fail later fail {@code commitTransaction}.
     */
    private static void failIfFailedAtOnce(Future<RecordMetadata> sent) throws Exception {
        if (sent.isDone()) {
            try {
                sent.get();
            } catch (ExecutionException e) {
                throw Futures.unwrap(e) instanceof Exception cause ? cause : e;
            }
        }
    }

    private KafkaProducer<byte[], byte[]> producerFor(int origin) throws Exception {
        KafkaProducer<byte[], byte[]> producer = producers.get(origin);
        if (producer != null) {
            return producer;
        }
        String id = sink.transactionalId(origin);
        producer = sink.initializedTransactionalProducer(id); // fences older producers; aborts or completes their transaction
        try {
            markers.put(origin, CommitMarker.read(admin(), id, markerPartition, sink.startupTimeout.toMillis()));
        } catch (Exception e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        producers.put(origin, producer);
        return producer;
    }

    private Admin admin() {
        if (admin == null) {
            admin = Admin.create(sink.adminProperties());
        }
        return admin;
    }

    private void closeProducer(int origin) {
        KafkaProducer<byte[], byte[]> p = producers.remove(origin);
        markers.remove(origin);
        if (p != null) {
            try {
                KafkaClients.closeUninterrupted(() -> p.close(Duration.ZERO));
            } catch (RuntimeException e) {
                LOG.debug("{}: closing the producer of subtask {} failed", name, origin, e);
            }
        }
    }

    @Override
    public void close() {
        for (Integer origin : Map.copyOf(producers).keySet()) {
            closeProducer(origin);
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(1));
        }
    }
}
