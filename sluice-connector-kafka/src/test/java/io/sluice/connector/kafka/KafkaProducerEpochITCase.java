package io.sluice.connector.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.connector.kafka.format.Formats;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.coordinator.transaction.TransactionMetadata;
import org.apache.kafka.coordinator.transaction.TransactionState;
import org.apache.kafka.server.common.TransactionVersion;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exactly-once sink on Kafka 4's transaction protocol (transaction version 2: the producer epoch is
 * bumped at the end of every transaction) with a transactional id whose epoch is a few transactions from
 * its limit: the broker's transaction coordinator is seeded (test code reaching into the in-JVM broker)
 * with the sink's three ids at epoch {@code Short.MAX_VALUE - 4}; the job then commits many checkpoints through them,
 * with a task failure in between, past the limit, where the coordinator moves the id to a new producer id.
 * Sluice never resumes a producer's transaction, so nothing depends on the epoch: every record is committed
 * once, and the id ends on another producer id than it was seeded with.
 */
@org.junit.jupiter.api.extension.ExtendWith(SharedKafkaBroker.class)
class KafkaProducerEpochITCase {
    private static KafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    /** Makes sure the transaction state topic exists and its partitions are loaded by the coordinator. */
    private static void warmUpTransactionCoordinator() {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("transactional.id", KafkaBroker.unique("warm-up-txn"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            producer.initTransactions();
        }
    }

    @Test
    void commitsGoOnAcrossTheProducerEpochLimitOfKafka4sTransactionProtocol() throws Exception {
        int records = 3_000;
        String in = KafkaBroker.unique("epoch-in");
        String out = KafkaBroker.unique("epoch-out");
        String prefix = KafkaBroker.unique("epoch");
        // The subtask's three ids: its own (batches written again after the restore, heartbeats) and the two slot
        // ids whose open transactions carry the records; the first slot carries most of them.
        List<String> ids = List.of(prefix + "-0", prefix + "-0-e0", prefix + "-0-e1");
        String id = prefix + "-0-e0";
        broker.createTopic(in, 2);
        broker.createTopic(out, 2);
        warmUpTransactionCoordinator();
        long firstSeededProducerId = 7_000_000_000L + System.nanoTime() % 1_000_000 * 10;
        short nearLimit = (short) (Short.MAX_VALUE - 4);
        java.util.Map<String, Long> seededProducerIds = new java.util.HashMap<>();
        for (String seededId : ids) {
            long producerId = firstSeededProducerId + seededProducerIds.size();
            seededProducerIds.put(seededId, producerId);
            TransactionMetadata seeded = new TransactionMetadata(seededId, producerId, -1L, -1L, nearLimit, (short) -1,
                    60_000, TransactionState.EMPTY, new HashSet<>(), -1L, System.currentTimeMillis(),
                    TransactionVersion.TV_2);
            var put = broker.cluster().brokers().values().iterator().next().transactionCoordinator()
                    .transactionManager().putTransactionStateIfNotExists(seeded);
            assertThat(put.isRight()).as("seeded %s: %s", seededId, put).isTrue();
        }
        long seededProducerId = seededProducerIds.get(id);

        List<String> input = KafkaCountingJob.numbers(records);
        InjectedFailures failures = InjectedFailures.at(List.of((long) records / 2));
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(5, Duration.ofMillis(50)));
            KafkaCountingJob.build(env, KafkaSource.<String>builder().bootstrapServers(broker.bootstrapServers())
                            .topics(in).valueFormat(Formats.strings()).serializer(Serializers.STRING).build(),
                    KafkaSink.<String>builder().bootstrapServers(broker.bootstrapServers()).topic(out)
                            .valueFormat(Formats.strings()).transactionalIdPrefix(prefix).build(), failures);
            JobId job = cluster.submit(env.buildJobGraph("kafka epoch limit"));
            // One chunk per completed checkpoint: each chunk is a transaction of its own, 20 in all.
            int chunk = records / 20;
            for (int from = 0; from < records; from += chunk) {
                long completed = cluster.dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS).checkpoints()
                        .completed();
                broker.produce(in, input.subList(from, from + chunk));
                await().atMost(Duration.ofSeconds(60)).until(() -> cluster.dispatcher().requestJobDetails(job)
                        .get(5, TimeUnit.SECONDS).checkpoints().completed() > completed + 1);
            }
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                    .until(() -> broker.readAll(out, "read_committed").size() >= records);
            cluster.dispatcher().cancelJob(job).get(10, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(job).get(30, TimeUnit.SECONDS);
            assertThat(failures.thrown()).isEqualTo(1);
        } finally {
            failures.release();
        }
        KafkaCountingJob.assertExactlyOnce(broker.readAll(out, "read_committed"), records, "across the epoch limit");
        try (Admin admin = broker.admin()) {
            for (String other : ids) {
                TransactionDescription o = admin.describeTransactions(List.of(other)).description(other)
                        .get(30, TimeUnit.SECONDS);
                System.out.println("KafkaProducerEpochITCase: " + other + " seeded with producer id "
                        + seededProducerIds.get(other) + " at epoch " + nearLimit + ", now producer id " + o.producerId()
                        + " at epoch " + o.producerEpoch() + " (" + o.state() + ")");
            }
            TransactionDescription d = admin.describeTransactions(List.of(id)).description(id).get(30, TimeUnit.SECONDS);
            assertThat(d.producerId()).as("the id went past the epoch limit onto a new producer id")
                    .isNotEqualTo(seededProducerId);
        }
    }
}
