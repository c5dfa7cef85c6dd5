package io.sluice.compare.kafka;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;

/**
 * A single-node KRaft Kafka cluster (broker and controller in one node) in the harness JVM, through
 * kafka-test-common-runtime, the way sluice-connector-kafka's tests start theirs: the same broker for
 * every system, in the JVM of the job that reads and writes it. Small settings for a 2-core machine
 * (2 network and 2 I/O threads, 2 partitions for the offsets and transaction-state topics, no flush
 * per message: the page cache, as Kafka's defaults).
 *
 * <p>Threading: start and close on the harness thread; {@link #bootstrapServers()} from any.
 */
public final class BenchBroker implements AutoCloseable {
    /** The broker's settings over the test kit's defaults, for the result file's header. */
    public static final Map<String, String> SETTINGS = Map.ofEntries(
            Map.entry("offsets.topic.replication.factor", "1"),
            Map.entry("offsets.topic.num.partitions", "2"),
            Map.entry("transaction.state.log.replication.factor", "1"),
            Map.entry("transaction.state.log.min.isr", "1"),
            Map.entry("transaction.state.log.num.partitions", "2"),
            Map.entry("group.initial.rebalance.delay.ms", "0"),
            Map.entry("auto.create.topics.enable", "false"),
            Map.entry("num.network.threads", "2"),
            Map.entry("num.io.threads", "2"));

    private final KafkaClusterTestKit cluster;

    private BenchBroker(KafkaClusterTestKit cluster) {
        this.cluster = cluster;
    }

    /** Starts the broker and waits until it serves. */
    public static BenchBroker start() throws Exception {
        KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder()
                .setCombined(true).setNumBrokerNodes(1).setNumControllerNodes(1).build());
        Map<String, String> props = new HashMap<>(SETTINGS);
        props.forEach(builder::setConfigProp);
        KafkaClusterTestKit cluster = builder.build();
        try {
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
        } catch (Exception e) {
            cluster.close();
            throw new IllegalStateException("The in-JVM Kafka broker did not start: " + e, e);
        }
        return new BenchBroker(cluster);
    }

    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    /** Creates {@code topic} and waits (at most 30 s) until every partition has a leader. */
    public void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get(30, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    boolean led = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS)
                            .get(topic).partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
                    if (led) {
                        return;
                    }
                } catch (java.util.concurrent.ExecutionException e) {
                    // right after the creation the broker may not know the topic yet: asked again
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("Topic " + topic + " has partitions without a leader after 30 s");
                }
                TimeUnit.MILLISECONDS.sleep(20);
            }
        }
    }

    @Override
    public void close() throws Exception {
        cluster.close();
    }
}
