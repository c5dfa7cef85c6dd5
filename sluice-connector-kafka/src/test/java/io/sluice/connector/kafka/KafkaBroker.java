package io.sluice.connector.kafka;

import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A real single-node KRaft Kafka cluster (broker and controller in one node) in the test JVM, through
 * kafka-test-common-runtime, for the connector's tests. Besides its own listener it has a listener
 * whose advertised address is a {@link TcpFaultProxy}: clients bootstrapped on
 * {@link #proxiedBootstrapServers()} reach the broker only through the proxy, so a test can make the
 * broker refuse connections or black-hole them ({@link #proxy()}) while the broker itself keeps running.
 * Small settings for a 2-core machine: one partition for the internal topics' logs where possible.
 * Test code only; never shipped (sluice-e2e uses it through this module's test jar).
 */
public final class KafkaBroker implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(KafkaBroker.class);
    private final KafkaClusterTestKit cluster;
    private final TcpFaultProxy proxy;
    private boolean closed;

    private KafkaBroker(KafkaClusterTestKit cluster, TcpFaultProxy proxy) {
        this.cluster = cluster;
        this.proxy = proxy;
    }

    /**
     * Starts a broker with {@code overrides} over the test defaults; waits until it serves. Until it is
     * closed, Kafka cannot exit or halt the JVM ({@link KafkaBrokerExitTrap}). The caller closes it before the
     * JVM ends (in an {@code @AfterAll}, or through {@link SharedKafkaBroker}), never in a shutdown hook: at
     * JVM exit Kafka's own hook deletes the broker's directories, and a broker still running then finds its
     * log directory gone and halts the JVM with status 1.
     */
    public static KafkaBroker start(Map<String, String> overrides) throws Exception {
        KafkaBrokerExitTrap.arm();
        try {
            return startArmed(overrides);
        } catch (Exception | Error e) {
            KafkaBrokerExitTrap.disarm();
            throw e;
        }
    }

    private static KafkaBroker startArmed(Map<String, String> overrides) throws Exception {
        int proxiedPort = freePort();
        TcpFaultProxy proxy = new TcpFaultProxy(new InetSocketAddress("127.0.0.1", proxiedPort), 0, 256);
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build());
        Map<String, String> props = new HashMap<>();
        props.put("listeners", "EXTERNAL://localhost:0,CONTROLLER://localhost:0,PROXIED://127.0.0.1:" + proxiedPort);
        props.put("advertised.listeners", "EXTERNAL://localhost:0,PROXIED://127.0.0.1:" + proxy.port());
        props.put("listener.security.protocol.map", "EXTERNAL:PLAINTEXT,CONTROLLER:PLAINTEXT,PROXIED:PLAINTEXT");
        props.put("offsets.topic.replication.factor", "1");
        props.put("offsets.topic.num.partitions", "2");
        props.put("transaction.state.log.replication.factor", "1");
        props.put("transaction.state.log.min.isr", "1");
        props.put("transaction.state.log.num.partitions", "2");
        props.put("group.initial.rebalance.delay.ms", "0");
        props.put("auto.create.topics.enable", "false");
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "2");
        props.put("log.flush.interval.messages", Long.toString(Long.MAX_VALUE));
        props.putAll(overrides);
        props.forEach(builder::setConfigProp);
        KafkaClusterTestKit cluster = builder.build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            KafkaBroker ready = new KafkaBroker(cluster, proxy);
            ready.createTopic("warm-up", 1); // the first write after a start can meet a leader not yet serving
            ready.produce("warm-up", List.of("ready"));
        } catch (Exception e) {
            cluster.close();
            proxy.close();
            throw e;
        }
        return new KafkaBroker(cluster, proxy);
    }

    public static KafkaBroker start() throws Exception {
        return start(Map.of());
    }

    private static final java.util.concurrent.atomic.AtomicInteger NAMES = new java.util.concurrent.atomic.AtomicInteger();

    /** A name no other test of this JVM uses: {@code base-<n>}. */
    public static String unique(String base) {
        return base + "-" + NAMES.incrementAndGet();
    }

    private static int freePort() throws java.io.IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The broker's own listener (never faulty). */
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** The listener behind the fault proxy: every connection of such a client goes through {@link #proxy()}. */
    public String proxiedBootstrapServers() {
        return "127.0.0.1:" + proxy.port();
    }

    public TcpFaultProxy proxy() {
        return proxy;
    }

    public KafkaClusterTestKit cluster() {
        return cluster;
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()));
    }

    /** Creates {@code topic} and waits until every partition has a leader (so a first write cannot be refused). */
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            // Right after the creation the broker may not know the topic yet (UnknownTopicOrPartition): asked again.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).ignoreExceptions().until(() ->
                    admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                            .partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty()));
        }
    }

    /** Writes {@code values} (key = value) to {@code topic}, committed, with an idempotent producer. */
    public void produce(String topic, List<String> values) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("linger.ms", "5");
        p.put("acks", "all");
        p.put("max.in.flight.requests.per.connection", "1");
        p.put("request.timeout.ms", "10000");
        p.put("delivery.timeout.ms", "30000");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>(values.size());
            for (String v : values) {
                sent.add(producer.send(new ProducerRecord<>(topic, v, v)));
            }
            producer.flush();
            for (java.util.concurrent.Future<?> f : sent) {
                f.get(30, TimeUnit.SECONDS); // a lost test record would make any exactly-once check meaningless
            }
        } catch (Exception e) {
            throw new AssertionError("could not write the test input to " + topic + ": " + e, e);
        }
    }

    /**
     * Every value of {@code topic} up to its current end, as a consumer with {@code isolation}
     * ({@code read_committed} or {@code read_uncommitted}) sees them.
     */
    public List<String> readAll(String topic, String isolation) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrapServers());
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        p.put("isolation.level", isolation);
        p.put("enable.auto.commit", "false");
        List<String> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10)).stream()
                    .map(i -> new TopicPartition(i.topic(), i.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(10));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end " + end + " within 30 s");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    out.add(r.value());
                }
            }
        }
        return out;
    }

    /** Closes the broker and deletes its directories; the last broker closed gives Kafka its exit and halt back. */
    @Override
    public void close() throws Exception {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        String servers = bootstrapServers();
        long start = System.nanoTime();
        try {
            cluster.close();
        } finally {
            try {
                proxy.close();
            } finally {
                KafkaBrokerExitTrap.disarm();
            }
        }
        LOG.info("Test Kafka broker {} closed in {} ms (thread {})", servers,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), Thread.currentThread().getName());
    }
}
