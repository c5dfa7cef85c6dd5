package io.sluice.connector.kafka;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.Committer;
import io.sluice.api.sink.SinkWriter;
import io.sluice.api.sink.TwoPhaseCommitSink;
import io.sluice.connector.kafka.format.Format;
import io.sluice.core.serialization.TypeSerializer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Writes records to a Kafka topic, {@linkplain DeliveryGuarantee#EXACTLY_ONCE exactly once} (the
 * default) or {@linkplain DeliveryGuarantee#AT_LEAST_ONCE at least once}.
 *
 * <p><b>Exactly once</b>, on the {@link TwoPhaseCommitSink} contract and public Kafka client APIs only
 * (docs/kafka.md explains the choice): a subtask sends the records it receives between two barriers
 * into an open transaction of one of its two slot ids ({@link TransactionSlots}) <em>and</em> keeps them,
 * serialized, in a {@link KafkaCommittable} that is stored with the checkpoint. When the checkpoint
 * completes, the commit thread commits that transaction together with the <em>commit marker</em>: the
 * checkpoint id as the offset of the consumer group {@code <prefix>-<subtask>}. Whenever that transaction
 * cannot be committed (a committable restored from a checkpoint, a failed send, a broker that aborted it)
 * the committer fences its id, which aborts it, and writes the batch again in one transaction of the
 * subtask's own id {@code <prefix>-<subtask>}, with the marker; it first reads the marker: a committable
 * at or below it was committed before and is skipped, so commits are idempotent. Nothing resumes a
 * producer's transaction, so no producer internals are needed, and a transaction the broker aborts
 * (timeout, outage) only costs writing its batch again. A fixed pool of ids: three per subtask.
 *
 * <p>At start each subtask checks, and fails with a message saying what to change: the broker answers,
 * the topic exists, the transaction timeout is at most the broker's {@code transaction.max.timeout.ms}
 * and at least checkpoint interval + the restart strategy's longest delay, no other running job commits
 * through the same prefix; and it aborts lingering transactions of its ids.
 *
 * <p>Immutable; travels in the job graph. Build with {@link #builder}.
 */
public final class KafkaSink<T> implements TwoPhaseCommitSink<T, KafkaCommittable> {
    private static final long serialVersionUID = 1L;
    /** Default transaction timeout: 15 minutes, the broker's default {@code transaction.max.timeout.ms}. */
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(15);
    /** The first retry backoff of the transactional producers, unless the sink's properties set one. */
    static final long COMMIT_RETRY_BACKOFF_MS = 10;

    final String bootstrapServers;
    final String topic;
    final Format<T> valueFormat;
    final KafkaKey<T> key;
    final DeliveryGuarantee guarantee;
    final String transactionalIdPrefix;
    final Duration transactionTimeout;
    final Duration startupTimeout;
    final Map<String, String> properties;

    private KafkaSink(Builder<T> b) {
        this.bootstrapServers = b.bootstrapServers;
        this.topic = b.topic;
        this.valueFormat = b.valueFormat;
        this.key = b.key;
        this.guarantee = b.guarantee;
        this.transactionalIdPrefix = b.transactionalIdPrefix;
        this.transactionTimeout = b.transactionTimeout;
        this.startupTimeout = b.startupTimeout;
        this.properties = Map.copyOf(b.properties);
    }

    public static <T> Builder<T> builder() {
        return new Builder<>();
    }

    @Override
    public SinkWriter<T, KafkaCommittable> createWriter(RuntimeContext context, List<KafkaCommittable> restored)
            throws Exception {
        if (guarantee == DeliveryGuarantee.AT_LEAST_ONCE) {
            return new AtLeastOnceKafkaWriter<>(this, context);
        }
        new KafkaSinkStartupChecks(this, context).run();
        java.util.Set<Integer> origins = new java.util.TreeSet<>();
        for (KafkaCommittable c : restored) {
            origins.add(c.originSubtask());
        }
        return new ExactlyOnceKafkaWriter<>(this, context, TransactionSlots.open(this, context.subtaskIndex(), origins));
    }

    @Override
    public Committer<KafkaCommittable> createCommitter(RuntimeContext context) {
        if (guarantee == DeliveryGuarantee.AT_LEAST_ONCE) {
            return committable -> { }; // at least once: nothing is ever pre-committed
        }
        return new TransactionalKafkaCommitter(this, context);
    }

    @Override
    public TypeSerializer<KafkaCommittable> committableSerializer() {
        return new KafkaCommittable.Serializer();
    }

    /** The transactional id, and commit-marker group, of subtask {@code subtask}. */
    String transactionalId(int subtask) {
        return transactionalIdPrefix + "-" + subtask;
    }

    /** The sink's name in errors and logs. */
    String describe(RuntimeContext context) {
        return "Kafka sink (" + (context.subtaskIndex() + 1) + "/" + context.parallelism() + ") to topic '" + topic
                + "' at " + bootstrapServers;
    }

    /** Producer settings: the user's properties over the sink's defaults. */
    Properties producerProperties(String clientId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers);
        p.put("key.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.put("value.serializer", "org.apache.kafka.common.serialization.ByteArraySerializer");
        p.put("enable.idempotence", "true");
        p.put("acks", "all");
        p.put("client.id", clientId);
        p.put("max.block.ms", Long.toString(startupTimeout.toMillis()));
        p.putAll(properties);
        return p;
    }

    /**
     * A transactional producer for {@code id}, set up with {@code initTransactions} (which fences older
     * producers of the id and aborts or completes their transaction). Blocks on the broker; closes the producer if that fails.
     */
    KafkaProducer<byte[], byte[]> initializedTransactionalProducer(String id) throws Exception {
        Properties p = producerProperties(id);
        p.put("transactional.id", id);
        p.put("transaction.timeout.ms", Long.toString(transactionTimeout.toMillis()));
        // The broker answers the first sends of a transaction that follows right after the previous commit with
        // CONCURRENT_TRANSACTIONS while that commit's markers are still being written (Kafka 4's transaction
        // protocol), and the producer retries after retry.backoff.ms (100 ms by default): each such answer
        // added that much to the visibility of a checkpoint's output. Seen 18 and 105 times in benchmark runs at
        // load 15-30, 0-2 times at load 3-4. Retries here start after 10 ms (still backing off exponentially).
        p.putIfAbsent("retry.backoff.ms", Long.toString(COMMIT_RETRY_BACKOFF_MS));
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p);
        try {
            producer.initTransactions();
        } catch (Exception e) {
            producer.close(Duration.ZERO);
            throw e;
        }
        return producer;
    }

    /**
     * How many bytes a subtask's open transaction may have sent and not yet seen acknowledged before it stops
     * sending (half the producer's {@code buffer.memory}): beyond that {@code send} could block the task
     * thread (a broker that does not answer); the checkpoint's batch is then written again at commit.
     */
    long maxUnackedBytesPerTransaction() {
        String configured = properties.get("buffer.memory");
        long buffer = configured == null ? 32L * 1024 * 1024 : Long.parseLong(configured.trim());
        return Math.max(1, buffer / 2);
    }

    /** Admin client settings (bootstrap and security properties of the user's). */
    Properties adminProperties() {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers);
        properties.forEach((k, v) -> {
            if (k.startsWith("security.") || k.startsWith("sasl.") || k.startsWith("ssl.")) {
                p.put(k, v);
            }
        });
        p.put("default.api.timeout.ms", Long.toString(startupTimeout.toMillis()));
        p.put("request.timeout.ms", Long.toString(Math.min(startupTimeout.toMillis(), 30_000)));
        return p;
    }

    /** Settings of a {@link KafkaSink}. */
    public static final class Builder<T> {
        private String bootstrapServers;
        private String topic;
        private Format<T> valueFormat;
        private KafkaKey<T> key;
        private DeliveryGuarantee guarantee = DeliveryGuarantee.EXACTLY_ONCE;
        private String transactionalIdPrefix;
        private Duration transactionTimeout = DEFAULT_TRANSACTION_TIMEOUT;
        private Duration startupTimeout = KafkaSource.DEFAULT_STARTUP_TIMEOUT;
        private final Map<String, String> properties = new HashMap<>();

        private Builder() {}

        public Builder<T> bootstrapServers(String servers) {
            this.bootstrapServers = Objects.requireNonNull(servers, "bootstrapServers");
            return this;
        }

        /** The topic to write to; it must exist when the sink starts. */
        public Builder<T> topic(String topic) {
            this.topic = Objects.requireNonNull(topic, "topic");
            return this;
        }

        /** How records become values (required). */
        public Builder<T> valueFormat(Format<T> format) {
            this.valueFormat = Objects.requireNonNull(format, "valueFormat");
            return this;
        }

        /** The key of each record (default: none). */
        public Builder<T> key(KafkaKey<T> key) {
            this.key = key;
            return this;
        }

        public Builder<T> deliveryGuarantee(DeliveryGuarantee guarantee) {
            this.guarantee = Objects.requireNonNull(guarantee, "guarantee");
            return this;
        }

        /**
         * The prefix of this sink's transactional ids and commit markers (required for exactly once): unique
         * per job and sink, and the same across restarts and resubmissions of the job.
         */
        public Builder<T> transactionalIdPrefix(String prefix) {
            this.transactionalIdPrefix = prefix;
            return this;
        }

        /** {@code transaction.timeout.ms} (default 15 min); checked at start, see the class comment. */
        public Builder<T> transactionTimeout(Duration timeout) {
            this.transactionTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** How long the sink waits for the broker at start and when blocking on metadata. */
        public Builder<T> startupTimeout(Duration timeout) {
            this.startupTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /** A producer property over the sink's defaults. */
        public Builder<T> property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        public KafkaSink<T> build() {
            if (bootstrapServers == null || bootstrapServers.isBlank()) {
                throw new IllegalArgumentException("Kafka sink: bootstrapServers is required (host:port of a broker)");
            }
            if (topic == null || topic.isBlank()) {
                throw new IllegalArgumentException("Kafka sink: the topic is required");
            }
            if (valueFormat == null) {
                throw new IllegalArgumentException("Kafka sink: valueFormat is required, for example Formats.strings()");
            }
            if (guarantee == DeliveryGuarantee.EXACTLY_ONCE
                    && (transactionalIdPrefix == null || transactionalIdPrefix.isBlank())) {
                throw new IllegalArgumentException("Kafka sink: exactly-once needs a transactional-id prefix that no other"
                        + " job uses, the same across restarts of this job: KafkaSink.builder().transactionalIdPrefix(\"...\")"
                        + " (or deliveryGuarantee(AT_LEAST_ONCE))");
            }
            if (properties.containsKey("transactional.id") || properties.containsKey("transaction.timeout.ms")) {
                throw new IllegalArgumentException("Kafka sink: set transactional ids through transactionalIdPrefix(...)"
                        + " and the timeout through transactionTimeout(...), not as producer properties");
            }
            return new KafkaSink<>(this);
        }
    }
}
