package io.sluice.connector.kafka;

import io.sluice.api.functions.Collector;
import io.sluice.api.source.SourceReader;
import io.sluice.config.Durations;
import io.sluice.connector.kafka.format.DeserializationErrorPolicy;
import io.sluice.connector.kafka.format.FailedRecord;
import io.sluice.operators.Output;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subtask's share of a {@link KafkaSource}: a {@link KafkaConsumer} with manually assigned partitions
 * (no group rebalancing), the offset of the next record per partition (the checkpointed position),
 * partition discovery, per-partition watermarks and the deserialization error policy.
 *
 * <p>Threading: task thread only (the consumer is single-threaded). Blocking calls are bounded: a poll
 * waits at most 10 ms, metadata calls at most the startup timeout at start. Partition discovery while
 * running never blocks ({@link PartitionDiscovery}, which also finds where a new partition starts).
 */
final class KafkaSourceReader<T> implements SourceReader<T> {
    private static final Logger LOG = LoggerFactory.getLogger(KafkaSourceReader.class);
    static final Duration POLL_TIMEOUT = Duration.ofMillis(10);

    private final KafkaSource<T> source;
    private final int subtask;
    private final int parallelism;
    private final String name;
    private final Pattern pattern;

    private KafkaConsumer<byte[], byte[]> consumer;
    private boolean started;
    private Map<TopicPartition, Long> restored = Map.of();
    /** Per assigned partition, the offset of the next record to emit: the checkpointed position. */
    private final Map<TopicPartition, Long> next = new LinkedHashMap<>();
    private Iterator<ConsumerRecord<byte[], byte[]>> pending = Collections.emptyIterator();
    private PartitionDiscovery discovery;
    private final TreeMap<Long, Map<TopicPartition, Long>> positionsByCheckpoint = new TreeMap<>();
    private final PartitionWatermarks watermarks;
    private Map<TopicPartition, Long> endOffsets;
    private long skipped;
    /** Its monotonic time measures partition idleness and the discovery interval; its wall clock nothing. */
    private final io.sluice.util.Clock clock;

    KafkaSourceReader(KafkaSource<T> source, int subtask, int parallelism) {
        this(source, subtask, parallelism, io.sluice.util.SystemClock.INSTANCE);
    }

    KafkaSourceReader(KafkaSource<T> source, int subtask, int parallelism, io.sluice.util.Clock clock) {
        this.clock = clock;
        this.source = source;
        this.subtask = subtask;
        this.parallelism = parallelism;
        this.name = "Kafka source (" + (subtask + 1) + "/" + parallelism + ") of " + source.describe();
        this.pattern = source.topicPattern == null ? null : Pattern.compile(source.topicPattern);
        this.watermarks = source.watermarkOutOfOrderness == null ? null
                : new PartitionWatermarks(source.watermarkOutOfOrderness.toMillis(),
                        source.watermarkIdleness == null ? -1 : source.watermarkIdleness.toMillis());
    }

    @Override
    public void restorePosition(byte[] position) {
        restored = PartitionPositions.decode(position);
    }

    /**
     * The offsets of every old reader together: {@link #start} then seeks each partition this reader is
     * assigned now to the offset its old reader had, and the partitions of other readers are ignored.
     */
    @Override
    public void restoreRescaledPositions(List<io.sluice.api.source.SubtaskPosition> previous) {
        Map<TopicPartition, Long> all = new HashMap<>();
        for (io.sluice.api.source.SubtaskPosition p : previous) {
            if (p.finished()) {
                throw new IllegalStateException(name + ": subtask " + p.subtaskIndex() + " of " + p.parallelism()
                        + " had finished in the checkpoint, so the offsets of its partitions are unknown");
            }
            all.putAll(PartitionPositions.decode(p.position()));
        }
        restored = all;
        LOG.info("{}: restored at another parallelism, takes its partitions' offsets from {} old subtasks ({} partitions)",
                name, previous.size(), all.size());
    }

    @Override
    public int emit(Collector<T> out, int maxRecords) throws Exception {
        // Monotonic: idleness and discovery are durations, which a stepped wall clock (NTP) must not move.
        long now = clock.relativeTimeMillis();
        if (!started) {
            start(now);
        } else if (discovery != null) {
            discovery.poll(now).ifPresent(all -> assignDiscovered(all, now));
        }
        if (!pending.hasNext() && !next.isEmpty()) { // a consumer with no partition refuses to poll
            pending = consumer.poll(POLL_TIMEOUT).iterator();
        }
        int n = 0;
        while (n < maxRecords && pending.hasNext()) {
            ConsumerRecord<byte[], byte[]> r = pending.next();
            TopicPartition tp = new TopicPartition(r.topic(), r.partition());
            T value;
            try {
                value = source.valueFormat.decode(r.value());
            } catch (Exception e) {
                handleUndeserializable(out, r, e);
                next.put(tp, r.offset() + 1);
                continue;
            }
            next.put(tp, r.offset() + 1);
            if (value == null) {
                continue; // a tombstone (no value): nothing to emit
            }
            if (out instanceof Output<T> output) {
                output.collect(value, r.timestamp());
            } else {
                out.collect(value);
            }
            if (watermarks != null) {
                watermarks.onRecord(tp, r.timestamp(), now);
            }
            n++;
        }
        if (watermarks != null && out instanceof Output<T> output) {
            Boolean idle = watermarks.idleChange(now);
            if (idle != null) {
                output.emitIdleStatus(idle);
            }
            long wm = watermarks.advance(now);
            if (wm != Long.MIN_VALUE) {
                output.emitWatermark(wm);
            }
        }
        if (n == 0 && endOffsets != null && !pending.hasNext() && reachedEnd()) {
            return END_OF_INPUT;
        }
        return n;
    }

    private void handleUndeserializable(Collector<T> out, ConsumerRecord<byte[], byte[]> r, Exception e) {
        String where = "topic " + r.topic() + ", partition " + r.partition() + ", offset " + r.offset();
        DeserializationErrorPolicy policy = source.errorPolicy;
        switch (policy.kind()) {
            case FAIL -> {
                throw new KafkaRecordDeserializationException(name + ": the record at " + where
                        + " does not deserialize with format " + source.valueFormat.name() + " (" + e
                        + "). Fix the record or the format, or choose another policy"
                        + " (KafkaSource.builder().deserializationErrors(skip() or sideOutput(tag)))", e);
            }
            case SKIP -> {
                skipped++;
                if (skipped == 1 || skipped % 1000 == 0) {
                    LOG.warn("{}: skipped the record at {} ({} skipped so far): it does not deserialize with {} ({})",
                            name, where, skipped, source.valueFormat.name(), e.toString());
                }
            }
            case SIDE_OUTPUT -> {
                FailedRecord failed = new FailedRecord(r.topic(), r.partition(), r.offset(), r.timestamp(), r.key(),
                        r.value(), e.toString());
                if (out instanceof Output<T> output) {
                    output.collect(policy.tag(), failed);
                } else {
                    throw new IllegalStateException(name + ": no side output here for the record at " + where, e);
                }
            }
        }
    }

    /**
     * With no partition to read (more subtasks than partitions): the poll's wait, so that the task sleeps instead
     * of asking again at once; partition discovery still runs at its interval. Otherwise 0: the poll waits.
     */
    @Override
    public long nanosUntilAvailable() {
        return started && next.isEmpty() ? POLL_TIMEOUT.toNanos() : 0;
    }

    /** Records dropped by the skip policy. */
    long skippedRecords() {
        return skipped;
    }

    private boolean reachedEnd() {
        for (Map.Entry<TopicPartition, Long> e : endOffsets.entrySet()) {
            if (consumer.position(e.getKey(), source.startupTimeout) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** First emit: connects, finds the partitions (the topics must exist), assigns and positions them. */
    private void start(long now) {
        started = true;
        consumer = new KafkaConsumer<>(source.consumerProperties(subtask));
        List<TopicPartition> mine;
        try {
            mine = partitionsOfThisSubtask(source.startupTimeout);
        } catch (TimeoutException e) {
            throw new KafkaUnavailableException(name + ": no broker of " + source.bootstrapServers + " answered within "
                    + Durations.describe(source.startupTimeout) + " (" + e.getMessage() + "). Check bootstrapServers and that"
                    + " the brokers run and are reachable from this task manager; the job is restarted by its restart"
                    + " strategy", e);
        }
        assign(mine, now);
        if (source.boundedToLatest) {
            endOffsets = new HashMap<>(consumer.endOffsets(mine, source.startupTimeout));
        }
        if (source.partitionDiscoveryInterval.toMillis() > 0 && !source.boundedToLatest) {
            discovery = new PartitionDiscovery(name, source.consumerProperties(subtask), this::wanted,
                    this::isNewOfThisSubtask, source.partitionDiscoveryInterval, now);
        }
        LOG.info("{} reads {} partitions: {}", name, mine.size(), mine);
    }

    /** Whether this subtask reads {@code tp} and does not read it yet: a partition discovery must add it. */
    private boolean isNewOfThisSubtask(TopicPartition tp) {
        return !next.containsKey(tp) && PartitionPositions.subtaskOf(tp, parallelism) == subtask;
    }

    /**
     * A discovery's result: adds the new partitions, each at its restored position or else at the earliest
     * offset the discovery found, with no call that waits for the broker.
     */
    private void assignDiscovered(Map<TopicPartition, Long> earliest, long now) {
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : ofThisSubtask(new ArrayList<>(earliest.keySet()))) {
            if (!next.containsKey(tp)) {
                fresh.add(tp);
            }
        }
        if (fresh.isEmpty()) {
            return;
        }
        LOG.info("{} found new partitions {}: reading them from their earliest record", name, fresh);
        List<TopicPartition> all = new ArrayList<>(next.keySet());
        all.addAll(fresh);
        consumer.assign(all);
        for (TopicPartition tp : fresh) {
            long position = restored.getOrDefault(tp, earliest.get(tp));
            consumer.seek(tp, position);
            next.put(tp, position);
            if (watermarks != null) {
                watermarks.track(tp, now);
            }
        }
    }

    /** At start: assigns {@code partitions} and positions them: restored, else the starting offsets. */
    private void assign(List<TopicPartition> partitions, long now) {
        List<TopicPartition> all = new ArrayList<>(next.keySet());
        all.addAll(partitions);
        consumer.assign(all);
        List<TopicPartition> toStart = new ArrayList<>();
        for (TopicPartition tp : partitions) {
            Long position = restored.get(tp);
            if (position != null) {
                consumer.seek(tp, position);
            } else {
                toStart.add(tp);
            }
        }
        if (!toStart.isEmpty()) {
            StartingOffsets start = source.startingOffsets;
            switch (start.kind()) {
                case EARLIEST -> consumer.seekToBeginning(toStart);
                case LATEST -> consumer.seekToEnd(toStart);
                case TIMESTAMP -> {
                    Map<TopicPartition, Long> query = new HashMap<>();
                    toStart.forEach(tp -> query.put(tp, start.timestampMillis()));
                    Map<TopicPartition, OffsetAndTimestamp> found = consumer.offsetsForTimes(query, source.startupTimeout);
                    List<TopicPartition> none = new ArrayList<>();
                    for (TopicPartition tp : toStart) {
                        OffsetAndTimestamp o = found.get(tp);
                        if (o == null) {
                            none.add(tp);
                        } else {
                            consumer.seek(tp, o.offset());
                        }
                    }
                    if (!none.isEmpty()) { // an empty list would mean every assigned partition
                        consumer.seekToEnd(none);
                    }
                }
                case COMMITTED -> {
                    Map<TopicPartition, OffsetAndMetadata> committed =
                            consumer.committed(new java.util.HashSet<>(toStart), source.startupTimeout);
                    List<TopicPartition> none = new ArrayList<>();
                    for (TopicPartition tp : toStart) {
                        OffsetAndMetadata o = committed.get(tp);
                        if (o == null) {
                            none.add(tp);
                        } else {
                            consumer.seek(tp, o.offset());
                        }
                    }
                    if (!none.isEmpty()) { // an empty list would mean every assigned partition
                        consumer.seekToBeginning(none);
                    }
                }
            }
        }
        for (TopicPartition tp : partitions) {
            next.put(tp, consumer.position(tp, source.startupTimeout)); // resolves the seeks now, not at a barrier
            if (watermarks != null) {
                watermarks.track(tp, now);
            }
        }
    }

    /** This subtask's partitions of the topics (or of the topics matching the pattern), sorted. */
    private List<TopicPartition> partitionsOfThisSubtask(Duration timeout) {
        List<PartitionInfo> infos = new ArrayList<>();
        if (pattern != null) {
            for (Map.Entry<String, List<PartitionInfo>> e : consumer.listTopics(timeout).entrySet()) {
                if (pattern.matcher(e.getKey()).matches()) {
                    infos.addAll(e.getValue());
                }
            }
        } else {
            Map<String, List<PartitionInfo>> existing = consumer.listTopics(timeout);
            for (String topic : source.topics) {
                List<PartitionInfo> p = existing.get(topic);
                if (p == null || p.isEmpty()) {
                    throw new UnknownKafkaTopicException(name + ": topic '" + topic + "' does not exist at "
                            + source.bootstrapServers + " (topics there: " + new java.util.TreeSet<>(existing.keySet())
                            + "). Create it, or correct the topic name");
                }
                infos.addAll(p);
            }
        }
        List<TopicPartition> all = new ArrayList<>();
        for (PartitionInfo info : infos) {
            all.add(new TopicPartition(info.topic(), info.partition()));
        }
        return ofThisSubtask(all);
    }

    /** Whether the source reads {@code topic}: one of its topics, or one its pattern matches. */
    private boolean wanted(String topic) {
        return pattern != null ? pattern.matcher(topic).matches() : source.topics.contains(topic);
    }

    /** The partitions of {@code all} that this subtask reads, sorted. */
    private List<TopicPartition> ofThisSubtask(List<TopicPartition> all) {
        List<TopicPartition> mine = new ArrayList<>();
        for (TopicPartition tp : all) {
            if (PartitionPositions.subtaskOf(tp, parallelism) == subtask) {
                mine.add(tp);
            }
        }
        mine.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return mine;
    }

    @Override
    public byte[] snapshotPosition() {
        return PartitionPositions.encode(started ? next : restored);
    }

    @Override
    public byte[] snapshotPosition(long checkpointId) {
        Map<TopicPartition, Long> positions = new LinkedHashMap<>(started ? next : restored);
        if (source.groupId != null) {
            positionsByCheckpoint.put(checkpointId, positions);
        }
        return PartitionPositions.encode(positions);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map<TopicPartition, Long> positions = positionsByCheckpoint.get(checkpointId);
        positionsByCheckpoint.headMap(checkpointId, true).clear();
        if (positions == null || positions.isEmpty() || consumer == null) {
            return;
        }
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        positions.forEach((tp, offset) -> offsets.put(tp, new OffsetAndMetadata(offset, "sluice checkpoint " + checkpointId)));
        // For monitoring only (lag, StartingOffsets.committed()): a failed commit is logged, never retried.
        consumer.commitAsync(offsets, (committed, error) -> {
            if (error != null) {
                LOG.debug("{}: committing the offsets of checkpoint {} to group {} failed: {}", name, checkpointId,
                        source.groupId, error.toString());
            }
        });
    }

    @Override
    public void close() {
        if (discovery != null) {
            discovery.close();
        }
        if (consumer != null) {
            KafkaClients.closeUninterrupted(() -> consumer.close(Duration.ofSeconds(1)));
        }
    }
}
