package io.sluice.connector.kafka;

import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.source.Source;
import io.sluice.api.source.SourceReader;
import io.sluice.connector.kafka.format.DeserializationErrorPolicy;
import io.sluice.connector.kafka.format.Format;
import io.sluice.core.serialization.TypeSerializer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * Reads Kafka topics (a list, or every topic matching a pattern) into a job, with the offsets in the
 * checkpoints: after a restart each partition resumes exactly after the last record the restored
 * checkpoint covers, so keyed state and exactly-once sinks see every record once.
 *
 * <ul>
 *   <li>Partitions are spread over the subtasks (round-robin per topic) and looked for again every
 *       {@code partitionDiscoveryInterval} (default 10 s; zero: never): new partitions and new topics
 *       matching the pattern are read from their earliest record.</li>
 *   <li>A partition without a position in the checkpoint starts at {@link StartingOffsets} (default:
 *       earliest).</li>
 *   <li>{@code isolation.level} is {@code read_committed} by default: records of aborted or open
 *       transactions are never read.</li>
 *   <li>With a {@code groupId}, the offsets of each completed checkpoint are committed to that group,
 *       for monitoring (lag) and {@link StartingOffsets#committed()}; they are never used on restore.</li>
 *   <li>Records carry their Kafka timestamp. With {@link Builder#watermarks} the source emits
 *       per-partition watermarks (the minimum over its partitions, idle partitions excluded).</li>
 *   <li>A record that does not deserialize is handled by the {@link DeserializationErrorPolicy}
 *       (default: fail, naming topic, partition and offset).</li>
 * </ul>
 *
 * <p>Unbounded by default; {@link Builder#boundedToLatest()} ends each subtask once it has read up to the
 * offsets that were the latest when it started. Immutable; travels in the job graph. Build with
 * {@link #builder}.
 */
public final class KafkaSource<T> implements Source<T> {
    private static final long serialVersionUID = 1L;
    /** Default interval of partition discovery. */
    public static final Duration DEFAULT_DISCOVERY_INTERVAL = Duration.ofSeconds(10);
    /** Default time to wait for the broker when the source starts. */
    public static final Duration DEFAULT_STARTUP_TIMEOUT = Duration.ofSeconds(30);

    final String bootstrapServers;
    final List<String> topics;
    final String topicPattern;
    final String groupId;
    final StartingOffsets startingOffsets;
    final Format<T> valueFormat;
    final DeserializationErrorPolicy errorPolicy;
    final Duration partitionDiscoveryInterval;
    final Duration startupTimeout;
    final boolean boundedToLatest;
    final Duration watermarkOutOfOrderness;
    final Duration watermarkIdleness;
    final TypeSerializer<T> serializer;
    final Map<String, String> properties;

    private KafkaSource(Builder<T> b) {
        this.bootstrapServers = b.bootstrapServers;
        this.topics = b.topics;
        this.topicPattern = b.topicPattern;
        this.groupId = b.groupId;
        this.startingOffsets = b.startingOffsets;
        this.valueFormat = b.valueFormat;
        this.errorPolicy = b.errorPolicy;
        this.partitionDiscoveryInterval = b.partitionDiscoveryInterval;
        this.startupTimeout = b.startupTimeout;
        this.boundedToLatest = b.boundedToLatest;
        this.watermarkOutOfOrderness = b.watermarkOutOfOrderness;
        this.watermarkIdleness = b.watermarkIdleness;
        this.serializer = b.serializer;
        this.properties = Map.copyOf(b.properties);
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    @Override
    public SourceReader<T> createReader(int subtaskIndex, int parallelism) {
        return new KafkaSourceReader<>(this, subtaskIndex, parallelism);
    }

    @Override
    public boolean isBounded() {
        return boundedToLatest;
    }

    /**
     * Unbounded: {@code true}. Positions are offsets per partition, so restored at another parallelism each
     * reader takes the offsets of the partitions it now reads (partitions are spread by their index over the
     * subtasks) from all the old readers' positions. Bounded ({@link Builder#boundedToLatest()}): {@code false},
     * since a reader that had finished left no offsets, and its partitions would be read again.
     */
    @Override
    public boolean redistributesPositions() {
        return !boundedToLatest;
    }

    @Override
    public boolean emitsTimestamps() {
        return true;
    }

    @Override
    public TypeSerializer<T> serializer() {
        return serializer;
    }

    /** What the source reads, for logs and errors. */
    String describe() {
        return (topicPattern != null ? "topics matching /" + topicPattern + "/" : "topics " + topics) + " at "
                + bootstrapServers;
    }

    /** The consumer settings: the user's properties over the source's defaults (read_committed, no auto commit). */
    Properties consumerProperties(int subtask) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers);
        p.put("isolation.level", "read_committed");
        p.put("enable.auto.commit", "false");
        p.put("auto.offset.reset", "earliest");
        p.put("client.id", "sluice-source-" + (groupId == null ? "" : groupId + "-") + subtask);
        p.put("key.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        p.put("value.deserializer", "org.apache.kafka.common.serialization.ByteArrayDeserializer");
        if (groupId != null) {
            p.put("group.id", groupId);
        }
        p.putAll(properties);
        return p;
    }

    /** Settings of a {@link KafkaSource}. */
    public static final class Builder<T> {
        private String bootstrapServers;
        private List<String> topics;
        private String topicPattern;
        private String groupId;
        private StartingOffsets startingOffsets = StartingOffsets.earliest();
        private Format<T> valueFormat;
        private DeserializationErrorPolicy errorPolicy = DeserializationErrorPolicy.fail();
        private Duration partitionDiscoveryInterval = DEFAULT_DISCOVERY_INTERVAL;
        private Duration startupTimeout = DEFAULT_STARTUP_TIMEOUT;
        private boolean boundedToLatest;
        private Duration watermarkOutOfOrderness;
        private Duration watermarkIdleness;
        private TypeSerializer<T> serializer;
        private final Map<String, String> properties = new HashMap<>();

        private Builder() {}

        /** {@code host:port[,host:port...]} of the Kafka cluster (required). */
        public Builder<T> bootstrapServers(String servers) {
            this.bootstrapServers = Objects.requireNonNull(servers, "bootstrapServers");
            return this;
        }

        /** Reads these topics; they must exist when the source starts. */
        public Builder<T> topics(String... topics) {
            this.topics = List.of(topics);
            this.topicPattern = null;
            return this;
        }

        /** Reads every topic whose whole name matches {@code regex}, including topics created later. */
        public Builder<T> topicPattern(String regex) {
            Pattern.compile(regex); // fail at build time on a bad pattern
            this.topicPattern = regex;
            this.topics = null;
            return this;
        }

        /** The consumer group offsets are committed to after each completed checkpoint (monitoring only). */
        public Builder<T> groupId(String groupId) {
            this.groupId = groupId;
            return this;
        }

        public Builder<T> startingOffsets(StartingOffsets offsets) {
            this.startingOffsets = Objects.requireNonNull(offsets, "startingOffsets");
            return this;
        }

        /** How values become records (required): {@code Formats.strings()}, {@code Formats.json(type)}, ... */
        public Builder<T> valueFormat(Format<T> format) {
            this.valueFormat = Objects.requireNonNull(format, "valueFormat");
            return this;
        }

        public Builder<T> deserializationErrors(DeserializationErrorPolicy policy) {
            this.errorPolicy = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /** How often to look for new partitions and topics (zero: never). */
        public Builder<T> partitionDiscoveryInterval(Duration interval) {
            this.partitionDiscoveryInterval = Objects.requireNonNull(interval, "interval");
            return this;
        }

        /** How long the source waits for the broker when it starts before it fails with a clear error. */
        public Builder<T> startupTimeout(Duration timeout) {
            this.startupTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** End once the offsets that were the latest at start are read (a bounded job, for tests and backfills). */
        public Builder<T> boundedToLatest() {
            this.boundedToLatest = true;
            return this;
        }

        /**
         * Per-partition watermarks: each partition's trails its highest timestamp by {@code outOfOrderness};
         * with {@code idleness} (may be null) a partition silent that long stops holding event time back.
         */
        public Builder<T> watermarks(Duration outOfOrderness, Duration idleness) {
            if (outOfOrderness.isNegative()) {
                throw new IllegalArgumentException("Kafka source: out-of-orderness must not be negative, was "
                        + outOfOrderness);
            }
            this.watermarkOutOfOrderness = outOfOrderness;
            this.watermarkIdleness = idleness;
            return this;
        }

        /** As {@link #watermarks(Duration, Duration)}, from a strategy's out-of-orderness and idleness. */
        public Builder<T> watermarks(WatermarkStrategy<?> strategy) {
            return watermarks(strategy.outOfOrderness(), strategy.idleTimeout());
        }

        /** The serializer of the records between tasks (else the dynamic one). */
        public Builder<T> serializer(TypeSerializer<T> serializer) {
            this.serializer = serializer;
            return this;
        }

        /** A consumer property, over the source's defaults (for example {@code isolation.level}). */
        public Builder<T> property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        public KafkaSource<T> build() {
            if (bootstrapServers == null || bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("Kafka source: bootstrapServers is required (host:port of a broker)");
            }
            if ((topics == null || topics.isEmpty()) && topicPattern == null) {
                throw new IllegalArgumentException("Kafka source: name the topics to read (topics(...)) or a pattern"
                        + " (topicPattern(...))");
            }
            if (valueFormat == null) {
                throw new IllegalArgumentException("Kafka source: valueFormat is required, for example"
                        + " Formats.strings() or Formats.json(MyRecord.class)");
            }
            if (startingOffsets.kind() == StartingOffsets.Kind.COMMITTED && groupId == null) {
                throw new IllegalArgumentException("Kafka source: startingOffsets(committed()) needs a groupId");
            }
            if (properties.containsKey("group.id") && groupId == null) {
                groupId = properties.get("group.id");
            }
            return new KafkaSource<>(this);
        }
    }
}
