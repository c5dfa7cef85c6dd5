package io.sluice.compare.kafka;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the output topic with {@code isolation.level=read_committed} from its beginning, on a thread of
 * its own, and notes when each record became visible: for a timed record ({@link KafkaRecords#outputSendNanos}
 * not 0) the time from its input's send to the return of the poll that delivered its count; for the
 * backlog, the moments the visible count first reached the start of the records/s window and the whole
 * backlog (with the JVM's CPU time then). It also checks exactly once: per key, every count must arrive
 * once (a second arrival is a duplicate); {@link #missing} says how many of the expected counts never came.
 *
 * <p>Threading: its own polling thread writes; the harness thread reads after {@link #close} or through
 * the volatile counters and milestones.
 */
public final class VisibilityConsumer implements AutoCloseable {
    /** When the visible count first reached a threshold: nanoTime, the count then, and the JVM's CPU nanoseconds. */
    public record Milestone(long nanos, long visible, long cpuNanos) {}

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final long windowStartAt;
    private final long backlog;
    private final BitSet[] counts;
    private final long[] latencies;
    private final AtomicReference<Milestone> windowStart = new AtomicReference<>();
    private final AtomicReference<Milestone> backlogVisible = new AtomicReference<>();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile long visible;
    private volatile int timed;
    private volatile long duplicates;
    private volatile boolean stop;

    /**
     * @param windowStartAt visible records at which the records/s window opens (see {@link #windowStart})
     * @param backlog       untimed records written before the job started
     * @param maxTimed      timed records at most (the latency array's size)
     */
    public VisibilityConsumer(String bootstrapServers, String topic, int partitions, int keys, long windowStartAt,
                              long backlog, int maxTimed) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20000");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "5");
        this.consumer = new KafkaConsumer<>(p);
        List<TopicPartition> tps = java.util.stream.IntStream.range(0, partitions)
                .mapToObj(i -> new TopicPartition(topic, i)).toList();
        consumer.assign(tps);
        consumer.seekToBeginning(tps);
        this.windowStartAt = windowStartAt;
        this.backlog = backlog;
        this.counts = new BitSet[keys];
        Arrays.setAll(counts, i -> new BitSet());
        this.latencies = new long[maxTimed];
        this.thread = new Thread(this::loop, "kafka-visibility-consumer");
        thread.setDaemon(true);
    }

    /** Starts polling. */
    public void start() {
        thread.start();
    }

    private void loop() {
        try {
            while (!stop) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(50));
                if (batch.isEmpty()) {
                    continue;
                }
                long now = System.nanoTime();
                long v = visible;
                int t = timed;
                long dup = duplicates;
                for (ConsumerRecord<byte[], byte[]> r : batch) {
                    byte[] value = r.value();
                    int key = (int) KafkaRecords.outputKey(value);
                    long count = KafkaRecords.outputCount(value);
                    BitSet seen = counts[key];
                    if (seen.get((int) count)) {
                        dup++;
                    } else {
                        seen.set((int) count);
                    }
                    long sent = KafkaRecords.outputSendNanos(value);
                    if (sent != 0 && t < latencies.length) {
                        latencies[t++] = now - sent;
                    }
                    v++;
                }
                // the milestones before the count: a reader that sees the count sees the milestone it passed
                if (v >= windowStartAt && windowStart.get() == null) {
                    windowStart.set(new Milestone(now, v, cpuNanos()));
                }
                if (v >= backlog && backlogVisible.get() == null) {
                    backlogVisible.set(new Milestone(now, v, cpuNanos()));
                }
                duplicates = dup;
                timed = t;
                visible = v;
            }
        } catch (Throwable e) {
            failure.set(e);
        }
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Output records seen so far (duplicates included). */
    public long visible() {
        rethrow();
        return visible;
    }

    public long duplicates() {
        return duplicates;
    }

    /** When the visible count first reached {@code windowStartAt}; null before. */
    public Milestone windowStart() {
        return windowStart.get();
    }

    /** When the visible count first reached the backlog; null before. */
    public Milestone backlogVisible() {
        return backlogVisible.get();
    }

    /** The visibility latencies of the timed records seen so far, in nanoseconds, sorted (a copy). */
    public long[] latenciesNanos() {
        long[] copy = Arrays.copyOf(latencies, timed);
        Arrays.sort(copy);
        return copy;
    }

    /**
     * How many of the counts that {@code written} records 0 … written-1 give (per key {@code k}: 1 … the
     * number of those records with {@code v % keys == k}) were never seen. Call after {@link #close}.
     */
    public long missing(long written) {
        long missing = 0;
        int keys = counts.length;
        for (int k = 0; k < keys; k++) {
            long expected = written / keys + (k < written % keys ? 1 : 0);
            BitSet seen = counts[k];
            long present = seen.get(1, (int) expected + 1).cardinality();
            missing += expected - present;
        }
        return missing;
    }

    /** Counts seen that no record of 0 … written-1 gives (above a key's expected count, or 0). */
    public long unexpected(long written) {
        long extra = 0;
        int keys = counts.length;
        for (int k = 0; k < keys; k++) {
            long expected = written / keys + (k < written % keys ? 1 : 0);
            BitSet seen = counts[k];
            extra += seen.cardinality() - seen.get(1, (int) expected + 1).cardinality();
        }
        return extra;
    }

    private void rethrow() {
        Throwable t = failure.get();
        if (t != null) {
            throw new IllegalStateException("The read_committed consumer of the output failed: " + t, t);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(10_000);
        if (!thread.isAlive()) {
            consumer.close();
        }
        rethrow();
    }
}
