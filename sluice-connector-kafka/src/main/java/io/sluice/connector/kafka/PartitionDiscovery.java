package io.sluice.connector.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partition discovery of a running source subtask that never blocks its task thread: the partitions of the
 * source's topics (or of the topics matching its pattern) are asked for every interval through an
 * {@link Admin} client of the subtask's own, whose futures the task thread only looks at.
 *
 * <p>Why not the consumer: the consumer is single-threaded, so its metadata call ran on the task thread,
 * and its request waits behind the consumer's long-polling fetch on the same broker connection (up to
 * {@code fetch.max.wait.ms}, 500 ms by default). Measured in the Kafka benchmark: every tenth checkpoint
 * (discovery every 10 s, checkpoints every second) waited 90-490 ms for a source's barrier, because the
 * trigger sat in the source's mailbox while {@code listTopics} waited; that checkpoint's output became
 * visible that much later (p99 visibility 1,233-1,304 ms in 3 of 5 runs instead of about 1,015 ms).
 *
 * <p>A discovery is up to three requests, one after the other: the topic names (ListTopics), the partitions
 * of the wanted ones that exist (DescribeTopics), and, for the partitions that are new to this subtask, their
 * earliest offsets (ListOffsets), where the subtask starts reading them; so positioning a new partition does
 * not block either. A topic deleted in between, or a request that fails or times out, is left out or
 * retried at the next interval, never an error of the job. The admin client
 * gets the consumer's connection and security settings (those the admin knows), so it reaches the brokers
 * the same way.
 *
 * <p>Threading: the task thread calls {@link #poll} and {@link #close}; the admin client completes its
 * futures on its own network thread.
 */
final class PartitionDiscovery implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionDiscovery.class);
    /** How long one request of a discovery may take before it is given up (and tried again at the next interval). */
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final String name;
    private final Properties adminProperties;
    private final Predicate<String> wanted;
    private final Predicate<TopicPartition> isNew;
    private final long intervalMillis;
    private Admin admin;
    private long nextAt;
    private KafkaFuture<Set<String>> listing;
    private Map<String, KafkaFuture<TopicDescription>> describing;
    private Map<TopicPartition, KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo>> locating;

    /**
     * @param consumerProperties the subtask's consumer settings, of which the admin client takes those it knows
     * @param wanted             which topic names the source reads
     * @param isNew              which partitions this subtask reads and does not read yet (asked on the task thread)
     * @param interval           time between the starts of two discoveries
     * @param now                the first discovery starts one interval after this (milliseconds)
     */
    PartitionDiscovery(String name, Properties consumerProperties, Predicate<String> wanted,
                       Predicate<TopicPartition> isNew, Duration interval, long now) {
        this.name = name;
        this.adminProperties = adminProperties(consumerProperties);
        this.wanted = wanted;
        this.isNew = isNew;
        this.intervalMillis = interval.toMillis();
        this.nextAt = now + intervalMillis;
    }

    /** The consumer's settings the admin client knows, with a client id of its own. */
    static Properties adminProperties(Properties consumerProperties) {
        Properties p = new Properties();
        Set<String> known = AdminClientConfig.configNames();
        for (String key : consumerProperties.stringPropertyNames()) {
            if (known.contains(key)) {
                p.put(key, consumerProperties.getProperty(key));
            }
        }
        Object clientId = consumerProperties.get(AdminClientConfig.CLIENT_ID_CONFIG);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, (clientId == null ? "sluice-source" : clientId) + "-discovery");
        return p;
    }

    /**
     * Task thread, never blocks: starts a discovery when one is due, moves a running one on when its request
     * answered, and returns the new partitions ({@code isNew}) with their earliest offsets once a discovery
     * completed (an empty map if none is new); empty otherwise.
     */
    Optional<Map<TopicPartition, Long>> poll(long now) {
        if (locating != null) {
            return locatedIfDone();
        }
        if (describing != null) {
            describedIfDone();
            return locating != null && locating.isEmpty() ? locatedIfDone() : Optional.empty();
        }
        if (listing != null) {
            if (listing.isDone()) {
                describeWanted();
            }
            return Optional.empty();
        }
        if (now >= nextAt) {
            nextAt = now + intervalMillis;
            if (admin == null) {
                admin = Admin.create(adminProperties);
            }
            listing = admin.listTopics(new ListTopicsOptions().timeoutMs((int) REQUEST_TIMEOUT.toMillis())).names();
        }
        return Optional.empty();
    }

    private void describeWanted() {
        Set<String> names;
        try {
            names = listing.get(); // done: does not wait
        } catch (ExecutionException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            LOG.debug("{}: partition discovery could not list the topics ({}); trying again in {} ms", name,
                    e.getCause() == null ? e : e.getCause(), intervalMillis);
            listing = null;
            return;
        }
        listing = null;
        List<String> topics = names.stream().filter(wanted).sorted().toList();
        describing = topics.isEmpty() ? Map.of() : admin.describeTopics(topics,
                new DescribeTopicsOptions().timeoutMs((int) REQUEST_TIMEOUT.toMillis())).topicNameValues();
    }

    /** When every description answered: asks for the earliest offsets of the new partitions. */
    private void describedIfDone() {
        for (KafkaFuture<TopicDescription> f : describing.values()) {
            if (!f.isDone()) {
                return;
            }
        }
        Map<TopicPartition, OffsetSpec> fresh = new HashMap<>();
        for (Map.Entry<String, KafkaFuture<TopicDescription>> e : describing.entrySet()) {
            try {
                for (TopicPartitionInfo p : e.getValue().get().partitions()) { // done: does not wait
                    TopicPartition tp = new TopicPartition(e.getKey(), p.partition());
                    if (isNew.test(tp)) {
                        fresh.put(tp, OffsetSpec.earliest());
                    }
                }
            } catch (ExecutionException | InterruptedException ex) {
                if (ex instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                LOG.debug("{}: partition discovery could not describe topic {} ({}); left out this time", name,
                        e.getKey(), ex.getCause() == null ? ex : ex.getCause());
            }
        }
        describing = null;
        locating = new HashMap<>();
        if (!fresh.isEmpty()) {
            ListOffsetsResult result = admin.listOffsets(fresh,
                    new ListOffsetsOptions().timeoutMs((int) REQUEST_TIMEOUT.toMillis()));
            fresh.keySet().forEach(tp -> locating.put(tp, result.partitionResult(tp)));
        }
    }

    /** When every offset answered: the new partitions whose earliest offset is known (the others come again). */
    private Optional<Map<TopicPartition, Long>> locatedIfDone() {
        for (KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo> f : locating.values()) {
            if (!f.isDone()) {
                return Optional.empty();
            }
        }
        Map<TopicPartition, Long> earliest = new HashMap<>();
        for (Map.Entry<TopicPartition, KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo>> e : locating.entrySet()) {
            try {
                earliest.put(e.getKey(), e.getValue().get().offset()); // done: does not wait
            } catch (ExecutionException | InterruptedException ex) {
                if (ex instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                LOG.debug("{}: partition discovery could not find the earliest offset of {} ({}); left out this time",
                        name, e.getKey(), ex.getCause() == null ? ex : ex.getCause());
            }
        }
        locating = null;
        return Optional.of(earliest);
    }

    /** Task thread: closes the admin client (in flight requests are given up). */
    @Override
    public void close() {
        Admin a = admin;
        admin = null;
        if (a != null) {
            KafkaClients.closeUninterrupted(() -> a.close(Duration.ofSeconds(1)));
        }
    }
}
