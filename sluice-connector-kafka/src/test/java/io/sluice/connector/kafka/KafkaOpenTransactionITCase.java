package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.sluice.api.functions.FakeRuntimeContext;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The exactly-once Kafka sink's fast path against the real broker: records go into an open transaction
 * while they arrive, and the commit after the checkpoint only ends it. Each test reads the topic both
 * {@code read_committed} (what a user sees: every record once) and {@code read_uncommitted} (what was
 * sent, aborted copies included), so that it shows which path a commit took and could fail.
 */
@ExtendWith(SharedKafkaBroker.class)
class KafkaOpenTransactionITCase {
    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    private static KafkaSink<String> sink(String bootstrap, String topic, String prefix) {
        return KafkaSink.<String>builder().bootstrapServers(bootstrap).topic(topic).valueFormat(Formats.strings())
                .transactionalIdPrefix(prefix).startupTimeout(Duration.ofSeconds(5))
                .property("request.timeout.ms", "2000").property("delivery.timeout.ms", "4000").build();
    }

    private static List<String> values(String tag, int n) {
        return IntStream.range(0, n).mapToObj(i -> tag + "-" + i).toList();
    }

    /** What a checkpoint would hold: the committable without its (in-memory only) open transaction. */
    private static KafkaCommittable throughCheckpoint(KafkaCommittable c) {
        KafkaCommittable.Serializer serializer = new KafkaCommittable.Serializer();
        DataOutputBuffer out = new DataOutputBuffer(256);
        serializer.serialize(c, out);
        return serializer.deserialize(new DataInputBuffer(out.toByteArray()));
    }

    @Test
    void recordsAreSentBeforeTheBarrierAndTheCommitOnlyEndsTheirTransaction() throws Exception {
        String topic = KafkaBroker.unique("open-out");
        String prefix = KafkaBroker.unique("open");
        broker.createTopic(topic, 2);
        KafkaSink<String> sink = sink(broker.bootstrapServers(), topic, prefix);
        FakeRuntimeContext context = new FakeRuntimeContext(0, 1);
        TransactionalKafkaCommitter committer = new TransactionalKafkaCommitter(sink, context);
        try (ExactlyOnceKafkaWriter<String> writer = new ExactlyOnceKafkaWriter<>(sink, context,
                TransactionSlots.open(sink, 0, Set.of()))) {
            List<KafkaCommittable> committed = new ArrayList<>();
            KafkaCommittable waiting = null;
            for (int checkpoint = 1; checkpoint <= 3; checkpoint++) {
                for (String v : values("c" + checkpoint, 100)) {
                    writer.write(v);
                }
                List<KafkaCommittable> pre = writer.preCommit(checkpoint);
                assertThat(pre).hasSize(1);
                assertThat(pre.get(0).openTransaction()).as("the records went into an open transaction").isNotNull();
                committed.addAll(pre);
                if (checkpoint == 1) {
                    // Sent, not visible: a read_uncommitted reader sees them before the commit.
                    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                            .until(() -> broker.readAll(topic, "read_uncommitted").size() == 100);
                    assertThat(broker.readAll(topic, "read_committed")).isEmpty();
                    waiting = pre.get(0); // committed only after the next interval's records went into the other slot
                } else if (checkpoint == 2) {
                    committer.commit(waiting);
                    committer.commit(pre.get(0));
                } else {
                    committer.commit(pre.get(0));
                }
            }
            assertThat(committer.committedOpen()).isEqualTo(3);
            assertThat(committer.rewritten()).isZero();
            // While checkpoint 1's transaction waited for its commit, checkpoint 2's records went into the other slot.
            assertThat(committed).extracting(c -> c.openTransaction().slot().transactionalId())
                    .containsExactly(prefix + "-0-e0", prefix + "-0-e1", prefix + "-0-e0");
        } finally {
            committer.close();
        }
        List<String> expected = new ArrayList<>();
        for (int checkpoint = 1; checkpoint <= 3; checkpoint++) {
            expected.addAll(values("c" + checkpoint, 100));
        }
        assertThat(broker.readAll(topic, "read_committed")).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(broker.readAll(topic, "read_uncommitted")).hasSize(300);
        assertThat(CommitMarker.read(broker.admin(), prefix + "-0", new org.apache.kafka.common.TopicPartition(topic, 0),
                10_000).checkpointId()).isEqualTo(3);
    }

    @Test
    void aRestoredCommittableIsWrittenOnceAndTheOldAttemptsOpenTransactionCanNeverCommit() throws Exception {
        String topic = KafkaBroker.unique("zombie-out");
        String prefix = KafkaBroker.unique("zombie");
        broker.createTopic(topic, 2);
        KafkaSink<String> sink = sink(broker.bootstrapServers(), topic, prefix);
        FakeRuntimeContext context = new FakeRuntimeContext(0, 1);
        TransactionalKafkaCommitter oldCommitter = new TransactionalKafkaCommitter(sink, context);
        TransactionalKafkaCommitter newCommitter = new TransactionalKafkaCommitter(sink, context);
        ExactlyOnceKafkaWriter<String> oldWriter = new ExactlyOnceKafkaWriter<>(sink, context,
                TransactionSlots.open(sink, 0, Set.of()));
        ExactlyOnceKafkaWriter<String> newWriter = null;
        try {
            for (String v : values("x", 50)) {
                oldWriter.write(v);
            }
            KafkaCommittable old = oldWriter.preCommit(1).get(0);
            assertThat(old.openTransaction()).isNotNull();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                    .until(() -> broker.readAll(topic, "read_uncommitted").size() == 50);

            // Checkpoint 1 completed; the old attempt is cut off before its commit and a new one restores checkpoint 1.
            KafkaCommittable restored = throughCheckpoint(old);
            assertThat(restored.openTransaction()).isNull();
            newWriter = new ExactlyOnceKafkaWriter<>(sink, context, TransactionSlots.open(sink, 0, Set.of(0)));
            newCommitter.commit(restored);
            assertThat(newCommitter.rewritten()).isEqualTo(1);

            // The zombie commits late: its transaction was fenced (aborted) and its batch is covered by the marker.
            oldCommitter.commit(old);
            assertThat(oldCommitter.committedOpen()).isZero();
        } finally {
            oldWriter.close();
            if (newWriter != null) {
                newWriter.close();
            }
            oldCommitter.close();
            newCommitter.close();
        }
        assertThat(broker.readAll(topic, "read_committed")).containsExactlyInAnyOrderElementsOf(values("x", 50));
        assertThat(broker.readAll(topic, "read_uncommitted")).as("the aborted open transaction existed").hasSize(100);
    }

    @Test
    void whileTheBrokerDoesNotAnswerTheWriterStopsSendingWithoutBlockingAndTheBatchIsWrittenAgain() throws Exception {
        String topic = KafkaBroker.unique("stall-out");
        String prefix = KafkaBroker.unique("stall");
        broker.createTopic(topic, 2);
        KafkaSink<String> sink = KafkaSink.<String>builder().bootstrapServers(broker.proxiedBootstrapServers())
                .topic(topic).valueFormat(Formats.strings()).transactionalIdPrefix(prefix)
                .startupTimeout(Duration.ofSeconds(10)).property("buffer.memory", Integer.toString(256 * 1024))
                .property("request.timeout.ms", "2000").property("delivery.timeout.ms", "4000").build();
        FakeRuntimeContext context = new FakeRuntimeContext(0, 1);
        TransactionalKafkaCommitter committer = new TransactionalKafkaCommitter(sink, context);
        List<String> written = values("s", 5_000); // with the padding about 225 KB: beyond half the buffer (128 KB)
        try (ExactlyOnceKafkaWriter<String> writer = new ExactlyOnceKafkaWriter<>(sink, context,
                TransactionSlots.open(sink, 0, Set.of()))) {
            broker.proxy().stall();
            String padding = "p".repeat(40);
            // A send that waited for buffer space would block max.block.ms (10 s) per record: thousands of them.
            KafkaCommittable c = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
                for (String v : written) {
                    writer.write(v + padding);
                }
                return writer.preCommit(1).get(0);
            });
            assertThat(c.openTransaction()).isNotNull();
            broker.proxy().heal();
            committer.commit(c);
            assertThat(committer.committedOpen()).isZero();
            assertThat(committer.rewritten()).isEqualTo(1);
        } finally {
            broker.proxy().heal();
            committer.close();
        }
        assertThat(broker.readAll(topic, "read_committed")).hasSize(written.size()).doesNotHaveDuplicates();
    }
}
