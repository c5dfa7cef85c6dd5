package io.sluice.e2e;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Writes click lines ({@code timestampMillis,user,url}, the input of the {@code KafkaClickSessions} example)
 * to a two-partition topic, one block of {@link #CLICKS_PER_BLOCK} clicks per tick of its own thread, and
 * says which sessions the example must write for them. Block {@code b} starts at event time
 * {@code t0 + b * 7 s}; its click {@code i} is at {@code + i * 10 ms}, by user {@code u<i % 8>}, on
 * partition {@code i % 2}, with that time as its Kafka timestamp. So each partition's timestamps ascend, and
 * with a session gap below the 3 s pause between blocks every block makes exactly one session per user of
 * 50 clicks. {@link #finish()} writes a comment line far ahead in event time to every partition, which
 * closes the last sessions. Every write is acknowledged by the broker before the next block (a lost input
 * record would make the exactly-once check meaningless). Test code only.
 */
final class ClickFeed implements AutoCloseable {
    static final int USERS = 8;
    static final int CLICKS_PER_BLOCK = 400;
    private static final long CLICK_SPACING_MILLIS = 10;
    private static final long BLOCK_PERIOD_MILLIS = 7_000;
    private static final int PARTITIONS = 2;

    private final String topic;
    private final long t0;
    private final Duration gap;
    private final KafkaProducer<String, String> producer;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "click-feed");
        t.setDaemon(true);
        return t;
    });
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    /** Blocks written and acknowledged; written by the feed's thread only. */
    private volatile int blocks;

    /**
     * Starts writing a block every {@code period} to {@code topic} at {@code bootstrapServers}; the sessions
     * expected are those of the example run with {@code --gap gap} (below 3 s).
     */
    static ClickFeed start(String bootstrapServers, String topic, Duration gap, Duration period) {
        if (gap.toMillis() >= BLOCK_PERIOD_MILLIS - CLICK_SPACING_MILLIS * CLICKS_PER_BLOCK) {
            throw new IllegalArgumentException("the session gap must be below the 3 s pause between blocks, got " + gap);
        }
        ClickFeed feed = new ClickFeed(bootstrapServers, topic, gap);
        feed.thread.scheduleWithFixedDelay(feed::writeBlock, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return feed;
    }

    private ClickFeed(String bootstrapServers, String topic, Duration gap) {
        this.topic = topic;
        this.gap = gap;
        this.t0 = System.currentTimeMillis() / 1000 * 1000;
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("linger.ms", "5");
        this.producer = new KafkaProducer<>(p);
    }

    private void writeBlock() {
        if (failure.get() != null) {
            return;
        }
        int b = blocks;
        try {
            List<Future<?>> sent = new ArrayList<>(CLICKS_PER_BLOCK);
            for (int i = 0; i < CLICKS_PER_BLOCK; i++) {
                long ts = blockStart(b) + i * CLICK_SPACING_MILLIS;
                String user = "u" + (i % USERS);
                sent.add(producer.send(new ProducerRecord<>(topic, i % PARTITIONS, ts, user, ts + "," + user + ",/b" + b + "/" + i)));
            }
            producer.flush();
            for (Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS);
            }
            blocks = b + 1;
        } catch (Exception e) {
            failure.compareAndSet(null, e);
        }
    }

    private long blockStart(int b) {
        return t0 + b * BLOCK_PERIOD_MILLIS;
    }

    /** Blocks written so far. */
    int blocks() {
        return blocks;
    }

    /**
     * Stops writing blocks, then writes a comment line (which the example skips) to every partition,
     * timestamped a minute of event time after the last click: every partition's watermark passes the last
     * sessions' ends, so they close. Returns the number of blocks written.
     */
    int finish() throws Exception {
        thread.shutdown();
        if (!thread.awaitTermination(60, TimeUnit.SECONDS)) {
            throw new AssertionError("the click feed did not stop within 60 s");
        }
        if (failure.get() != null) {
            throw new AssertionError("the click feed failed to write block " + blocks + " to " + topic, failure.get());
        }
        long end = blockStart(blocks) + 60_000;
        List<Future<?>> sent = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            sent.add(producer.send(new ProducerRecord<>(topic, p, end, "end", "# end of the clicks")));
        }
        producer.flush();
        for (Future<?> f : sent) {
            f.get(30, TimeUnit.SECONDS);
        }
        return blocks;
    }

    /**
     * The lines the example writes for the first {@code blocks} blocks: per block and user
     * {@code user,sessionStart,sessionEnd,clicks,firstUrl}, the end being the last click plus the gap.
     */
    List<String> expectedSessions(int blocks) {
        List<String> out = new ArrayList<>();
        for (int b = 0; b < blocks; b++) {
            for (int u = 0; u < USERS; u++) {
                long first = blockStart(b) + u * CLICK_SPACING_MILLIS;
                int lastIndex = (CLICKS_PER_BLOCK - USERS) + u;
                long last = blockStart(b) + lastIndex * CLICK_SPACING_MILLIS;
                out.add("u" + u + "," + first + "," + (last + gap.toMillis()) + "," + (CLICKS_PER_BLOCK / USERS)
                        + ",/b" + b + "/" + u);
            }
        }
        return out;
    }

    @Override
    public void close() {
        thread.shutdownNow();
        producer.close(Duration.ofSeconds(10));
    }
}
