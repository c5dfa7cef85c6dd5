package io.sluice.connector.kafka;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import io.sluice.concurrent.DaemonThreadFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An exactly-once writer's {@link TransactionSlot}s: {@value #SLOTS} transactional ids per subtask,
 * {@code <prefix>-<subtask>-e0} and {@code -e1}, used in turn: the records between two barriers go into
 * the transaction of one while the previous checkpoint's transaction, in the other, waits for its commit.
 * A fixed pool, like the subtask's own id {@code <prefix>-<subtask>} (which writes checkpoints' batches
 * again after a restore): three ids per subtask, never more with more checkpoints.
 *
 * <p>{@link #open} fences, before the writer's first record and before any restored committable is
 * committed, the slot ids of this subtask and of every subtask whose committables it restored: a
 * transaction that an earlier attempt (a zombie still running, or a crashed process) began in one of
 * them is aborted (or, if it was being committed, completed) and can never be committed afterwards, so
 * writing the restored batches again cannot duplicate them.
 *
 * <p>Threading: created and used by the writer's task thread; {@link #close} from the task thread too. One
 * sender thread per subtask sends the records the writer hands over ({@link TransactionSlot#handOver}).
 */
final class TransactionSlots implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TransactionSlots.class);
    static final int SLOTS = 2;

    private final List<TransactionSlot> slots;
    private final ExecutorService sender;

    private TransactionSlots(List<TransactionSlot> slots, ExecutorService sender) {
        this.slots = slots;
        this.sender = sender;
    }

    /** The id of slot {@code k} of subtask {@code subtask}. */
    static String transactionalId(String prefix, int subtask, int k) {
        return prefix + "-" + subtask + "-e" + k;
    }

    /**
     * Fences the slot ids of {@code otherOrigins} (subtasks of an earlier parallelism whose committables
     * this subtask restored) and sets up this subtask's slots, each with a producer whose
     * {@code initTransactions} fenced its id. Blocks on the broker, like the sink's checks at start.
     */
    static TransactionSlots open(KafkaSink<?> sink, int subtask, Set<Integer> otherOrigins) throws Exception {
        TransactionSlot.ProducerFactory factory = id -> {
            var producer = sink.initializedTransactionalProducer(id);
            try {
                producer.partitionsFor(sink.topic); // so that a send does not wait for the topic's metadata
            } catch (RuntimeException e) {
                producer.close(java.time.Duration.ZERO);
                throw e;
            }
            return producer;
        };
        for (int origin : otherOrigins) {
            if (origin == subtask) {
                continue;
            }
            for (int k = 0; k < SLOTS; k++) {
                factory.create(transactionalId(sink.transactionalIdPrefix, origin, k)).close(java.time.Duration.ZERO);
            }
        }
        long maxPending = sink.maxUnackedBytesPerTransaction();
        ExecutorService sender = Executors.newSingleThreadExecutor(DaemonThreadFactory.named("sluice-kafka-send-"
                + sink.transactionalIdPrefix + "-" + subtask));
        List<TransactionSlot> slots = new ArrayList<>(SLOTS);
        try {
            for (int k = 0; k < SLOTS; k++) {
                TransactionSlot slot = new TransactionSlot(transactionalId(sink.transactionalIdPrefix, subtask, k),
                        sink.topic, factory, maxPending, sender, sink.startupTimeout);
                slots.add(slot);
                slot.fence();
            }
        } catch (Exception e) {
            slots.forEach(s -> s.close(false));
            sender.shutdownNow();
            throw e;
        }
        return new TransactionSlots(slots, sender);
    }

    /** Begins a transaction in a free slot; {@code null} if none is free (both wait for their commit). */
    @Nullable OpenTransaction begin() {
        for (TransactionSlot slot : slots) {
            long generation = slot.begin();
            if (generation >= 0) {
                return new OpenTransaction(slot, generation);
            }
        }
        return null;
    }

    /**
     * Closes the slots; transactions still open are aborted on a background thread (bounded by the
     * producers' {@code max.block.ms}), so that a cancelled task does not wait for the broker and
     * {@code read_committed} readers need not wait for the transaction timeout.
     */
    @Override
    public void close() {
        sender.shutdown(); // chunks still queued are dropped with their producers below
        Thread aborter = new Thread(() -> {
            for (TransactionSlot slot : slots) {
                slot.close(true);
            }
        }, "sluice-kafka-abort-" + slots.get(0).transactionalId());
        aborter.setDaemon(true);
        aborter.setUncaughtExceptionHandler((t, e) -> LOG.debug("{} failed", t.getName(), e));
        aborter.start();
    }
}
