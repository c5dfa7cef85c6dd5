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
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.VertexStatus;
import io.sluice.operators.CommitStats;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Kafka → keyed count → Kafka, exactly once, on a real KRaft broker in this JVM and a {@link LocalCluster}
 * with HA: a {@code read_committed} consumer of the output sees each (key, count) once, through seeded task
 * failures and a job-manager failover; through a job manager stopped while completed checkpoints wait for
 * their commit; and through the broker refusing and black-holing connections for longer than a checkpoint
 * interval. A {@code read_uncommitted} consumer sees the aborted data, so the exactly-once check can fail.
 *
 * <p>{@code -Dsluice.kafka.seeds=N} (default 2; 20 with {@code -Pkafka-soak}) and {@code -Dsluice.test.seed=S}.
 */
@org.junit.jupiter.api.extension.ExtendWith({SharedKafkaBroker.class, ThreadDumpOnFailure.class})
class KafkaExactlyOnceITCase {
    private static final Duration INTERVAL = Duration.ofMillis(200);
    private static KafkaBroker broker;

    @TempDir
    Path dir;

    @BeforeAll
    static void startBroker(KafkaBroker shared) {
        broker = shared;
    }

    static Stream<Long> seeds() {
        String fixed = System.getProperty("sluice.test.seed");
        if (fixed != null) {
            return Stream.of(Long.parseLong(fixed));
        }
        int n = Integer.getInteger("sluice.kafka.seeds", 2);
        long base = System.nanoTime();
        return LongStream.range(0, n).mapToObj(i -> base + i * 7919);
    }

    private static String topic(String name) {
        return KafkaBroker.unique(name);
    }

    private StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.create().setParallelism(2).enableCheckpointing(INTERVAL)
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(20, Duration.ofMillis(50)));
    }

    private static KafkaSource<String> unboundedSource(String bootstrap, String topic) {
        return KafkaSource.<String>builder().bootstrapServers(bootstrap).topics(topic)
                .valueFormat(Formats.strings()).serializer(Serializers.STRING).build();
    }

    private static KafkaSink<String> sink(String bootstrap, String topic, String prefix) {
        return KafkaSink.<String>builder().bootstrapServers(bootstrap).topic(topic).valueFormat(Formats.strings())
                .transactionalIdPrefix(prefix).startupTimeout(Duration.ofSeconds(5))
                .property("request.timeout.ms", "2000").property("delivery.timeout.ms", "4000").build();
    }

    /** A crashed commit: a transaction of the sink's id left open with copies of real output lines. */
    private static void plantLingeringTransaction(String topic, String transactionalId, List<String> lines) {
        Properties p = new Properties();
        p.put("bootstrap.servers", broker.bootstrapServers());
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", StringSerializer.class.getName());
        p.put("transactional.id", transactionalId);
        KafkaProducer<String, String> producer = new KafkaProducer<>(p);
        producer.initTransactions();
        producer.beginTransaction();
        for (String line : lines) {
            producer.send(new ProducerRecord<>(topic, line));
        }
        producer.flush();
        // No commit, no abort, and the producer is abandoned (as a killed process would): the transaction lingers.
    }

    /** The job's status; under a load of dozens of runnable threads an answer can take seconds, so 15 s. */
    private static JobDetails details(DispatcherGateway d, JobId id) throws Exception {
        return d.requestJobDetails(id).get(15, TimeUnit.SECONDS);
    }

    /** The sink vertex's commits; {@link CommitStats#NONE} until its tasks report them. */
    private static CommitStats commits(JobDetails d) {
        return d.vertices().stream().map(VertexStatus::commits).filter(java.util.Objects::nonNull).findFirst()
                .orElse(CommitStats.NONE);
    }

    private static void awaitCommittedOutput(String topic, int records) {
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .until(() -> broker.readAll(topic, "read_committed").size() >= records);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void seededTaskFailuresAndAJobManagerFailoverLeaveEveryRecordOnceInTheOutput(long seed) throws Exception {
        System.out.println("KafkaExactlyOnceITCase seed " + seed);
        Random random = new Random(seed);
        int records = 6_000;
        String in = topic("eo-in");
        String out = topic("eo-out");
        String prefix = topic("eo-" + seed);
        broker.createTopic(in, 4);
        broker.createTopic(out, 3);
        List<String> input = KafkaCountingJob.numbers(records);
        broker.produce(in, input.subList(0, records / 10));
        plantLingeringTransaction(out, prefix + "-0", List.of("0,1", "0,2", "0,3"));
        List<Long> failAt = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            failAt.add((long) random.nextInt(records));
        }
        System.out.println("KafkaExactlyOnceITCase seed " + seed + ": failures at records " + failAt);
        InjectedFailures failures = InjectedFailures.at(failAt);
        long failoverAfterCheckpoints = 2 + random.nextInt(6);
        int thrown = 0;
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            StreamExecutionEnvironment env = env();
            KafkaCountingJob.build(env, unboundedSource(broker.bootstrapServers(), in),
                    sink(broker.bootstrapServers(), out, prefix), failures);
            JobId id = cluster.submit(env.buildJobGraph("kafka exactly once, seed " + seed));
            // The rest of the input arrives in chunks, one per completed checkpoint, so that the failures and
            // the failover fall between commits.
            int chunk = records / 10;
            for (int from = chunk; from < records; from += chunk) {
                long completed = details(cluster.dispatcher(), id).checkpoints().completed();
                await().atMost(Duration.ofSeconds(60)).until(() ->
                        details(cluster.dispatcher(), id).checkpoints().completed() > completed);
                broker.produce(in, input.subList(from, Math.min(records, from + chunk)));
                if (from / chunk == failoverAfterCheckpoints) {
                    break;
                }
            }
            LocalCluster.JobManager standby = cluster.startJobManager();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> standby.dispatcher().isLeader());
            int sent = (int) Math.min(records, (failoverAfterCheckpoints + 1) * chunk);
            if (sent < records) {
                broker.produce(in, input.subList(sent, records));
            }
            awaitCommittedOutput(out, records);
            thrown = failures.thrown();
            standby.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
            JobResult result = standby.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
        } finally {
            failures.release();
        }
        List<String> committed = broker.readAll(out, "read_committed");
        List<String> everything = broker.readAll(out, "read_uncommitted");
        KafkaCountingJob.assertExactlyOnce(committed, records, "seed " + seed);
        assertThat(everything).as("the aborted lingering transaction's records are in the log (seed %d)", seed)
                .hasSizeGreaterThan(committed.size()).containsAll(List.of("0,1", "0,2", "0,3"));
        System.out.println("KafkaExactlyOnceITCase seed " + seed + ": " + thrown + " task failures, failover after chunk " + failoverAfterCheckpoints + ", "
                + committed.size() + " committed records, " + (everything.size() - committed.size()) + " aborted");
    }

    /**
     * Rescaled (issue 21): the job runs at parallelism 2 until half the input is counted and committed, is cancelled
     * and restored from its latest checkpoint at parallelism 3, source included: the three readers take the four
     * partitions' offsets from the two old ones, the sink's committables move with the sink, and every record is in
     * the output once. The restored job's sink goes on through the prefix of the job it was restored from without
     * taking it for a second job still writing (before, it failed with "prefix ... in use" and restarted for about
     * 10 s, until the old job's last commit was old enough).
     */
    @Test
    void aJobRescaledFrom2To3WithItsSourceWritesEveryRecordOnceAndStartsWithoutARestart() throws Exception {
        int records = 6_000;
        String in = topic("rescale-in");
        String out = topic("rescale-out");
        String prefix = topic("rescale");
        broker.createTopic(in, 4);
        broker.createTopic(out, 3);
        List<String> input = KafkaCountingJob.numbers(records);
        broker.produce(in, input.subList(0, records / 2));
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build()) {
            StreamExecutionEnvironment two = env();
            KafkaCountingJob.build(two, unboundedSource(broker.bootstrapServers(), in),
                    sink(broker.bootstrapServers(), out, prefix), InjectedFailures.none());
            JobId first = cluster.submit(two.buildJobGraph("kafka rescale, parallelism 2"));
            awaitCommittedOutput(out, records / 2);
            cluster.dispatcher().cancelJob(first).get(10, TimeUnit.SECONDS);
            assertThat(cluster.dispatcher().requestJobResult(first).get(30, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.CANCELED);

            broker.produce(in, input.subList(records / 2, records));
            StreamExecutionEnvironment three = env().setParallelism(3);
            KafkaCountingJob.build(three, unboundedSource(broker.bootstrapServers(), in),
                    sink(broker.bootstrapServers(), out, prefix), InjectedFailures.none());
            await().atMost(Duration.ofSeconds(30)).until(() -> cluster.slotPool().freeSlots() == 4);
            JobId second = cluster.submit(three.buildJobGraph("kafka rescale, parallelism 3"), "latest:" + first);
            awaitCommittedOutput(out, records);
            JobDetails d = details(cluster.dispatcher(), second);
            System.out.println("KafkaExactlyOnceITCase rescale: " + d.restarts() + " restarts, vertices "
                    + d.vertices().stream().map(v -> v.name() + " x" + v.parallelism()).toList()
                    + (d.recentFailures().isEmpty() ? "" : ", first failure " + d.recentFailures().get(0)));
            assertThat(d.restarts()).as("the sink took the job it was restored from for another: %s",
                    d.recentFailures()).isZero();
            assertThat(d.vertices()).allMatch(v -> v.parallelism() == 3);
            cluster.dispatcher().cancelJob(second).get(10, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(second).get(30, TimeUnit.SECONDS);
        }
        KafkaCountingJob.assertExactlyOnce(broker.readAll(out, "read_committed"), records, "rescaled 2 -> 3");
    }

    @Test
    void aJobManagerStoppedWhileCompletedCheckpointsAwaitTheirCommitCommitsThemAfterTheFailover() throws Exception {
        int records = 6_000;
        String in = topic("jm-in");
        String out = topic("jm-out");
        broker.createTopic(in, 4);
        broker.createTopic(out, 3);
        broker.produce(in, KafkaCountingJob.numbers(records / 2));
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            StreamExecutionEnvironment env = env();
            // The sink reaches the broker only through the fault proxy; the source directly.
            KafkaCountingJob.build(env, unboundedSource(broker.bootstrapServers(), in),
                    sink(broker.proxiedBootstrapServers(), out, topic("jm")), InjectedFailures.none());
            JobId id = cluster.submit(env.buildJobGraph("kafka commit after failover"));
            DispatcherGateway first = cluster.dispatcher();
            await().atMost(Duration.ofSeconds(60)).until(() -> commits(details(first, id)).committed() > 0);

            broker.proxy().refuseConnections();
            broker.proxy().dropConnections();
            broker.produce(in, KafkaCountingJob.numbers(records).subList(records / 2, records));
            long completedAtRefusal = details(first, id).checkpoints().completed();
            // Checkpoints go on completing (the writer never waits for the broker); their commits wait.
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                JobDetails d = details(first, id);
                CommitStats c = commits(d);
                return d.checkpoints().completed() >= completedAtRefusal + 3 && c.pendingCommittables() > 0
                        && c.lastCommitError() != null && c.commitRetries() > 0;
            });
            CommitStats waiting = commits(details(first, id));
            System.out.println("While the broker refuses: " + waiting);
            assertThat(waiting.lastCommitError()).contains("checkpoint").contains("next retry in");

            LocalCluster.JobManager standby = cluster.startJobManager();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> standby.dispatcher().isLeader());
            broker.proxy().heal();
            awaitCommittedOutput(out, records);
            standby.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
            standby.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS);
        } finally {
            broker.proxy().heal();
        }
        KafkaCountingJob.assertExactlyOnce(broker.readAll(out, "read_committed"), records, "commit after failover");
    }

    @Test
    void theBrokerRefusingThenBlackHoledForLongerThanACheckpointIntervalLosesAndDuplicatesNothing() throws Exception {
        int records = 6_000;
        String in = topic("bh-in");
        String out = topic("bh-out");
        broker.createTopic(in, 4);
        broker.createTopic(out, 3);
        List<String> input = KafkaCountingJob.numbers(records);
        broker.produce(in, input.subList(0, records / 4));
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = env();
            // The sink's commits go through the fault proxy; the source reads directly, so records (and
            // checkpoints) go on during the outage while the commits of the completed checkpoints wait.
            KafkaCountingJob.build(env, unboundedSource(broker.bootstrapServers(), in),
                    sink(broker.proxiedBootstrapServers(), out, topic("bh")), InjectedFailures.none());
            JobId id = cluster.submit(env.buildJobGraph("kafka outage"));
            await().atMost(Duration.ofSeconds(60)).until(() -> commits(details(cluster.dispatcher(), id)).committed() > 0);

            broker.proxy().refuseConnections();
            broker.proxy().dropConnections();
            broker.produce(in, input.subList(records / 4, records / 2));
            long completedAtRefusal = details(cluster.dispatcher(), id).checkpoints().completed();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                JobDetails d = details(cluster.dispatcher(), id);
                CommitStats c = commits(d);
                return c.oldestPendingAgeMillis() >= 4 * INTERVAL.toMillis() && c.lastCommitError() != null
                        && d.checkpoints().completed() >= completedAtRefusal + 3;
            });
            CommitStats refused = commits(details(cluster.dispatcher(), id));
            System.out.println("While the broker refuses connections: " + refused);
            assertThat(refused.lastCommitError()).contains("committing").contains("next retry in");

            broker.proxy().heal();
            broker.proxy().stall(); // black-holed: connections are accepted, nothing answers
            broker.proxy().dropConnections();
            broker.produce(in, input.subList(records / 2, 3 * records / 4));
            long completedAtStall = details(cluster.dispatcher(), id).checkpoints().completed();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                JobDetails d = details(cluster.dispatcher(), id);
                CommitStats c = commits(d);
                return c.oldestPendingAgeMillis() >= 4 * INTERVAL.toMillis()
                        && d.checkpoints().completed() >= completedAtStall + 3;
            });
            JobDetails during = details(cluster.dispatcher(), id);
            System.out.println("While the broker is black-holed: " + commits(during) + "; checkpoints "
                    + during.checkpoints().completed() + " completed");
            assertThat(during.status()).isEqualTo(JobStatus.RUNNING);

            broker.proxy().heal();
            broker.produce(in, input.subList(3 * records / 4, records));
            awaitCommittedOutput(out, records);
            JobDetails after = details(cluster.dispatcher(), id);
            assertThat(after.restarts()).as("an outage of the sink's broker restarts nothing").isZero();
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    commits(details(cluster.dispatcher(), id)).lastCommitError() == null);
            cluster.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
            cluster.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS);
        } finally {
            broker.proxy().heal();
        }
        KafkaCountingJob.assertExactlyOnce(broker.readAll(out, "read_committed"), records, "outage");
    }
}
