package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.source.SourceReader;
import io.sluice.connector.kafka.format.Formats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Kafka source's reader against a real broker, driven directly (no cluster): what a subtask reads when. */
@org.junit.jupiter.api.extension.ExtendWith(SharedKafkaBroker.class)
class KafkaSourceReaderITCase {
    private static KafkaBroker broker;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    private static KafkaSource.Builder<String> source(String topic) {
        return KafkaSource.<String>builder().bootstrapServers(broker.bootstrapServers()).topics(topic)
                .valueFormat(Formats.strings());
    }

    /** Emits until {@code n} records came out (or fails after 30 s). */
    private static void readUntil(SourceReader<String> reader, RecordingOutput<String> out, int n) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            reader.emit(out, 512);
            return out.records.size() >= n;
        });
    }

    private static void produceAt(String topic, int partition, long timestamp, String value) {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("acks", "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.send(new ProducerRecord<>(topic, partition, timestamp, null, value)).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("could not write to " + topic + ": " + e, e);
        }
    }

    @Test
    void partitionsAreSpreadOverSubtasksWithoutOverlap() throws Exception {
        String topic = KafkaBroker.unique("spread");
        broker.createTopic(topic, 6);
        broker.produce(topic, KafkaCountingJob.numbers(600));
        Set<String> all = new HashSet<>();
        int total = 0;
        for (int subtask = 0; subtask < 3; subtask++) {
            try (SourceReader<String> reader = source(topic).boundedToLatest().build().createReader(subtask, 3)) {
                RecordingOutput<String> out = new RecordingOutput<>();
                while (reader.emit(out, 512) != SourceReader.END_OF_INPUT) {
                    // reads to the end of its partitions
                }
                assertThat(out.records).as("subtask %d reads some partitions", subtask).isNotEmpty();
                all.addAll(out.records);
                total += out.records.size();
            }
        }
        assertThat(total).isEqualTo(600);
        assertThat(all).hasSize(600);
    }

    /**
     * Restored at another parallelism (issue 21): two readers' offsets of six partitions handed to three new
     * readers, each taking those of the partitions it reads now; together they read every record the old ones
     * had not, once.
     */
    @Test
    void positionsOfTwoReadersAreRedistributedOverThreeWithNoRecordTwiceOrLost() throws Exception {
        String topic = KafkaBroker.unique("rescale");
        broker.createTopic(topic, 6);
        broker.produce(topic, KafkaCountingJob.numbers(600));
        KafkaSource<String> source = source(topic).build();
        assertThat(source.redistributesPositions()).isTrue();
        assertThat(source(topic).boundedToLatest().build().redistributesPositions())
                .as("a finished bounded reader leaves no offsets").isFalse();
        List<String> before = new ArrayList<>();
        List<io.sluice.api.source.SubtaskPosition> positions = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            try (SourceReader<String> reader = source.createReader(subtask, 2)) {
                RecordingOutput<String> out = new RecordingOutput<>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    reader.emit(out, 7);
                    return out.records.size() >= 100;
                });
                before.addAll(out.records);
                positions.add(new io.sluice.api.source.SubtaskPosition(subtask, 2, reader.snapshotPosition(1)));
            }
        }
        List<SourceReader<String>> readers = new ArrayList<>();
        RecordingOutput<String> out = new RecordingOutput<>();
        try {
            for (int subtask = 0; subtask < 3; subtask++) {
                SourceReader<String> reader = source.createReader(subtask, 3);
                readers.add(reader);
                reader.restoreRescaledPositions(positions);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                for (SourceReader<String> reader : readers) {
                    reader.emit(out, 512);
                }
                return out.records.size() >= 600 - before.size();
            });
            for (int round = 0; round < 20; round++) { // a record read twice would come now at the latest
                for (SourceReader<String> reader : readers) {
                    reader.emit(out, 512);
                }
            }
        } finally {
            for (SourceReader<String> reader : readers) {
                reader.close();
            }
        }
        List<String> after = out.records;
        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        assertThat(all).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(KafkaCountingJob.numbers(600));
    }

    /**
     * More subtasks than partitions (as after a rescale): the subtask without a partition reads nothing, says it is
     * idle (even without an idle timeout: it would hold every window back) and lets the task sleep between calls;
     * bounded, it ends. Before, its consumer's poll threw "Consumer is not subscribed to any topics or assigned any
     * partitions" and the job restarted in a loop (seen by KafkaProcessesITCase after sluice rescale).
     */
    @Test
    void aSubtaskWithoutAPartitionIsIdleAndSleepsInsteadOfFailing() throws Exception {
        String topic = KafkaBroker.unique("fewer-partitions");
        broker.createTopic(topic, 2);
        broker.produce(topic, KafkaCountingJob.numbers(10));
        int empty = 0;
        while (PartitionPositions.subtaskOf(new TopicPartition(topic, 0), 3) == empty
                || PartitionPositions.subtaskOf(new TopicPartition(topic, 1), 3) == empty) {
            empty++; // the subtask of three that is given neither partition
        }
        try (SourceReader<String> reader = source(topic).watermarks(Duration.ofMillis(100), null).build()
                .createReader(empty, 3)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            for (int i = 0; i < 3; i++) {
                assertThat(reader.emit(out, 512)).isZero();
            }
            assertThat(out.records).isEmpty();
            assertThat(out.idleChanges).containsExactly(true);
            assertThat(reader.nanosUntilAvailable()).as("sleeps instead of asking again at once").isPositive();
        }
        try (SourceReader<String> bounded = source(topic).boundedToLatest().build().createReader(empty, 3)) {
            assertThat(bounded.emit(new RecordingOutput<>(), 512)).isEqualTo(SourceReader.END_OF_INPUT);
        }
    }

    @Test
    void aRestoredPositionResumesRightAfterTheLastEmittedRecordAndRecordsCarryTheirKafkaTimestamp() throws Exception {
        String topic = KafkaBroker.unique("restore");
        broker.createTopic(topic, 1);
        for (int i = 0; i < 10; i++) {
            produceAt(topic, 0, 1_000 + i, "r" + i);
        }
        byte[] position;
        try (SourceReader<String> reader = source(topic).build().createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                reader.emit(out, 1); // one record at a time: the position is taken between two
                return out.records.size() >= 4;
            });
            assertThat(out.timestamps.get(0)).isEqualTo(1_000L);
            position = reader.snapshotPosition(1);
            assertThat(out.records).hasSize(4);
        }
        try (SourceReader<String> reader = source(topic).build().createReader(0, 1)) {
            reader.restorePosition(position);
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 6);
            assertThat(out.records).containsExactly("r4", "r5", "r6", "r7", "r8", "r9");
        }
    }

    @Test
    void startingOffsetsLatestTimestampAndCommittedAndOffsetsCommittedToTheGroupAfterACheckpoint() throws Exception {
        String topic = KafkaBroker.unique("start");
        broker.createTopic(topic, 1);
        long base = System.currentTimeMillis() - 600_000; // recent: never behind the topic's retention
        for (int i = 0; i < 5; i++) {
            produceAt(topic, 0, base + i * 1_000, "old" + i);
        }
        String group = KafkaBroker.unique("group");
        try (SourceReader<String> reader = source(topic).startingOffsets(StartingOffsets.timestamp(base + 2_000))
                .groupId(group).build().createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 3);
            assertThat(out.records).containsExactly("old2", "old3", "old4");
            reader.snapshotPosition(7);
            reader.notifyCheckpointComplete(7);
            try (Admin admin = broker.admin()) {
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    reader.emit(out, 512); // the asynchronous commit completes with a poll
                    Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                    OffsetAndMetadata o = offsets.get(new TopicPartition(topic, 0));
                    return o != null && o.offset() == 5 && o.metadata().contains("checkpoint 7");
                });
            }
        }
        try (SourceReader<String> reader = source(topic).startingOffsets(StartingOffsets.latest()).build()
                .createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            reader.emit(out, 512); // positioned at the end now
            produceAt(topic, 0, base + 20_000, "new");
            readUntil(reader, out, 1);
            assertThat(out.records).containsExactly("new");
        }
        try (SourceReader<String> reader = source(topic).startingOffsets(StartingOffsets.committed()).groupId(group)
                .build().createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 1);
            assertThat(out.records).containsExactly("new"); // the group committed offset 5
        }
    }

    @Test
    void readCommittedByDefaultSkipsAbortedAndOpenTransactions() throws Exception {
        String topic = KafkaBroker.unique("txn");
        broker.createTopic(topic, 1);
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("transactional.id", KafkaBroker.unique("txn-writer"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "aborted"));
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(topic, "committed"));
            producer.commitTransaction();
        }
        // commitTransaction returns before the commit markers are written; the reader's end offsets are the last
        // stable offset, so wait until the committed record is readable.
        await().atMost(Duration.ofSeconds(30)).until(() -> broker.readAll(topic, "read_committed").size() == 1);
        try (SourceReader<String> reader = source(topic).boundedToLatest().build().createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            while (reader.emit(out, 512) != SourceReader.END_OF_INPUT) {
                // to the end
            }
            assertThat(out.records).containsExactly("committed");
        }
    }

    @Test
    void perPartitionWatermarksHoldBackForTheSlowestPartitionUntilItIsIdle() throws Exception {
        String topic = KafkaBroker.unique("wm");
        broker.createTopic(topic, 2);
        produceAt(topic, 0, 50_000, "fast");
        produceAt(topic, 1, 10_000, "slow");
        try (SourceReader<String> reader = source(topic).watermarks(Duration.ofMillis(100), Duration.ofMillis(300))
                .build().createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 2);
            // The source's watermark is the slow partition's: 10000 - 100 - 1.
            assertThat(out.watermarks).isNotEmpty().allMatch(w -> w <= 9_899L);
            assertThat(out.watermarks.get(out.watermarks.size() - 1)).isEqualTo(9_899L);
            produceAt(topic, 0, 60_000, "fast again");
            // The slow partition falls silent: after the idle timeout it no longer holds the watermark back.
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                reader.emit(out, 512);
                return out.watermarks.get(out.watermarks.size() - 1) == 59_899L;
            });
            assertThat(out.records).contains("fast again");
        }
    }

    /**
     * Partition idleness is a duration: a wall clock stepped forward an hour (NTP) does not make a partition that
     * delivered a record a moment ago idle, which would let the watermark pass its next records. Before 2026-12-07
     * the reader measured it with the wall clock, and the step alone let the watermark jump to the fast partition's.
     */
    @Test
    void aWallClockSteppedForwardDoesNotMakeAPartitionIdle() throws Exception {
        String topic = KafkaBroker.unique("wm-step");
        broker.createTopic(topic, 2);
        produceAt(topic, 0, 50_000, "fast");
        produceAt(topic, 1, 10_000, "slow");
        io.sluice.util.ManualClock clock = new io.sluice.util.ManualClock();
        KafkaSource<String> source = source(topic).watermarks(Duration.ofMillis(100), Duration.ofSeconds(10)).build();
        try (SourceReader<String> reader = new KafkaSourceReader<>(source, 0, 1, clock)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 2);
            assertThat(out.watermarks.get(out.watermarks.size() - 1)).isEqualTo(9_899L);

            clock.stepWallClock(Duration.ofHours(1));
            produceAt(topic, 0, 60_000, "fast again");
            readUntil(reader, out, 3);
            reader.emit(out, 512);

            assertThat(out.watermarks).as("the slow partition still holds the watermark back").allMatch(w -> w <= 9_899L);
            assertThat(out.idleChanges).isEmpty();
        }
    }

    @Test
    void partitionsAddedWhileRunningAreDiscoveredAndReadFromTheirStart() throws Exception {
        String topic = KafkaBroker.unique("discover");
        broker.createTopic(topic, 1);
        produceAt(topic, 0, 1, "p0");
        try (SourceReader<String> reader = source(topic).partitionDiscoveryInterval(Duration.ofMillis(100)).build()
                .createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 1);
            try (Admin admin = broker.admin()) {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get(30, TimeUnit.SECONDS);
            }
            produceAt(topic, 2, 2, "p2");
            produceAt(topic, 1, 3, "p1");
            readUntil(reader, out, 3);
            assertThat(new ArrayList<>(out.records)).containsExactlyInAnyOrder("p0", "p1", "p2");
            assertThat(PartitionPositions.decode(reader.snapshotPosition())).as("the checkpointed positions")
                    .isEqualTo(Map.of(new TopicPartition(topic, 0), 1L, new TopicPartition(topic, 1), 1L,
                            new TopicPartition(topic, 2), 1L));
        }
    }

    /**
     * Discovery never blocks the task thread: with the broker black-holed (connections accepted, nothing
     * answered) and a discovery due at every call, no {@code emit} takes long. Before discovery moved to its
     * own admin client, each discovery waited in the consumer's {@code listTopics} for its 1 s timeout (and,
     * with the broker answering, behind the consumer's long-polling fetch: up to 500 ms in the Kafka
     * benchmark, which held back checkpoint barriers).
     */
    @Test
    void partitionDiscoveryDoesNotBlockTheTaskThreadWhileTheBrokerDoesNotAnswer() throws Exception {
        String topic = KafkaBroker.unique("discover-stalled");
        broker.createTopic(topic, 1);
        produceAt(topic, 0, 1, "before");
        try (SourceReader<String> reader = KafkaSource.<String>builder()
                .bootstrapServers(broker.proxiedBootstrapServers()).topics(topic).valueFormat(Formats.strings())
                .partitionDiscoveryInterval(Duration.ofMillis(1)).build().createReader(0, 1)) {
            RecordingOutput<String> out = new RecordingOutput<>();
            readUntil(reader, out, 1);
            broker.proxy().stall();
            broker.proxy().dropConnections();
            try {
                long slowest = 0;
                for (int i = 0; i < 50; i++) {
                    long start = System.nanoTime();
                    reader.emit(out, 512);
                    slowest = Math.max(slowest, System.nanoTime() - start);
                }
                assertThat(slowest).as("the slowest of 50 emits, in ns, with a discovery due at each")
                        .isLessThan(TimeUnit.MILLISECONDS.toNanos(800));
            } finally {
                broker.proxy().heal();
            }
            produceAt(topic, 0, 2, "after");
            readUntil(reader, out, 2);
            assertThat(new ArrayList<>(out.records)).containsExactly("before", "after");
        }
    }
}
