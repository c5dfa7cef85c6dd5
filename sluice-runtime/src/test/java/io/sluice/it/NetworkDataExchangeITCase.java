package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.tuple.Tuple3;
import io.sluice.api.DataStream;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exactly-once and event-time checks of {@link ExactlyOnceITCase} and {@link EventTimeITCase}
 * with the data exchange over TCP: two task executors with one slot each, so subtask 0 runs in one
 * and subtask 1 in the other, and every keyed channel between them (records, barriers, watermarks,
 * end of partition) crosses a loopback connection with credit-based flow control. Task failures
 * release the channels of the failed deployment on both sides; the restarted deployment gets new
 * ones. Each run checks that data really went over TCP.
 */
class NetworkDataExchangeITCase {
    private static final int KEYS = InjectedFailureCountingScenario.KEYS;
    private static final InjectedFailureCountingScenario.Draw DRAW =
            new InjectedFailureCountingScenario.Draw(30_000, 2, 3);
    private static LocalCluster cluster;

    @TempDir
    static Path checkpoints;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).networkDataExchange(true).build();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    static Stream<Long> seeds() {
        return InjectedFailureCountingScenario.seeds(20261201L, 4);
    }

    /** The scenario of {@link ExactlyOnceITCase} with parallelism 2, one subtask in each task executor. */
    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void keyedCountsAreExactAfterInjectedFailuresWithChannelsOverTcp(long seed) throws Exception {
        long sentBefore = buffersSent();
        InjectedFailureCountingScenario.run(cluster, DRAW, seed, null, checkpoints.resolve("seed-" + seed),
                "exactly-once over TCP, seed " + seed);
        long sentOverTcp = buffersSent() - sentBefore;
        assertThat(sentOverTcp).as("seed %d: buffers sent over TCP", seed).isPositive();
        System.out.printf("seed %d: %d buffers over TCP%n", seed, sentOverTcp);
    }

    /**
     * Event time across task executors: two watermarked sources, a union and a keyBy into event-time
     * timers per key and range, with a task failure in the middle; barriers align over TCP channels,
     * watermarks cross them in order with the records, and each (key, range) ends exact.
     */
    @Test
    void eventTimeTimersAndBarriersAcrossTaskExecutorsAreExactAfterAFailure() throws Exception {
        long records = 20_000;
        long range = 100;
        long finalTimer = 1_000_000_000L;
        InjectedFailures failures = InjectedFailures.at(Set.of(records / 2 + 7));
        CollectingSink<Tuple3<Long, Long, Long>> sink = CollectingSink.create();
        long sentBefore = buffersSent();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(50))
                    .setCheckpointDir(checkpoints.resolve("event-time").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ZERO));
            WatermarkStrategy<Long> strategy = WatermarkStrategy.<Long>forMonotonousTimestamps()
                    .withTimestampAssigner((v, previous) -> v).withEmitInterval(Duration.ofMillis(5));
            DataStream<Long> a = env.fromSource(SequenceSource.bounded(0, records - 1).withRate(20_000), strategy, "a");
            DataStream<Long> b = env.fromSource(SequenceSource.bounded(0, records - 1).withRate(20_000), strategy, "b");
            a.union(b).keyBy(v -> v % 10).process(new EventTimeITCase.CountPerRange(failures)).name("count per range")
                    .addSink(sink, "results");
            JobId id = cluster.submit(env.buildJobGraph("event time over TCP"));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);

            Map<List<Long>, Long> expected = new HashMap<>();
            for (long v = 0; v < records; v++) {
                expected.merge(List.of(v % 10, v / range * range + range - 1), 2L, Long::sum);
                expected.merge(List.of(v % 10, finalTimer), 2L, Long::sum);
            }
            Map<List<Long>, Long> last = CollectingSink.lastValuePerKey(sink.results(),
                    t -> List.of(t.f0(), t.f1()), Tuple3::f2);
            assertThat(last).isEqualTo(expected);
            assertThat(failures.thrown()).isEqualTo(1);
            JobDetails details = cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS);
            assertThat(details.checkpoints().completed()).as("checkpoints completed (barriers aligned over TCP)")
                    .isPositive();
            assertThat(buffersSent() - sentBefore).as("buffers sent over TCP").isPositive();
        } finally {
            failures.release();
            sink.release();
        }
    }

    /**
     * Local and remote channels in one job: parallelism 3 on two task executors of two slots, so
     * subtasks 0 and 1 share a task executor (their channels stay in memory) and subtask 2 runs in
     * the other (its channels cross TCP). Counts exact after two task failures.
     */
    @Test
    void aJobWithChannelsInMemoryAndOverTcpCountsExactly() throws Exception {
        long records = 30_000;
        InjectedFailures plan = InjectedFailures.at(new TreeSet<>(Set.of(9_000L, 21_000L)));
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (LocalCluster mixed = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2)
                .networkDataExchange(true).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(3)
                    .enableCheckpointing(Duration.ofMillis(10))
                    .setCheckpointDir(checkpoints.resolve("mixed").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ZERO));
            MutableCountingJob.Run run = MutableCountingJob.build(env,
                    SequenceSource.bounded(0, records - 1).withRate(200_000), KEYS, plan, sink);
            JobId id = mixed.submit(env.buildJobGraph("local and remote channels"));
            JobResult result = mixed.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);

            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(plan.thrown()).isEqualTo(2);
            assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1))
                    .isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
            assertThat(mixed.networkEnvironments()).allSatisfy(e -> assertThat(e.metrics().buffersSent()).isPositive());
            run.release();
        } finally {
            plan.release();
            sink.release();
        }
    }

    /**
     * An error no restart can fix, in a producer whose consumers run in both task executors, fails
     * the job at once with that error: the failed task's remote peers must not fail first with a
     * released channel (whose cause crosses the network only as text) and so win the restart
     * decision. Repeated, since it is a race between two task executors' reports.
     */
    @org.junit.jupiter.api.RepeatedTest(5)
    void anUnrecoverableErrorInAProducerWithRemoteConsumersFailsTheJobAtOnceWithThatError() throws Exception {
        CollectingSink<Object> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(100)).setCheckpointDir(checkpoints.resolve("null-key").toString());
            env.fromSource(SequenceSource.unbounded(0).withRate(200_000), "numbers")
                    .keyBy(v -> v == 20_001 ? null : v % 16)
                    .map(v -> (Object) v)
                    .addSink(sink, "out");
            JobId id = cluster.submit(env.buildJobGraph("null key over TCP"));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);

            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FAILED);
            assertThat(result.failureMessage()).startsWith(io.sluice.api.errors.NullKeyException.class.getName());
            JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
            assertThat(d.restarts()).as("no restart spent on an error a restart cannot fix").isZero();
        } finally {
            sink.release();
        }
    }

    private static long buffersSent() {
        return cluster.networkEnvironments().stream().mapToLong(e -> e.metrics().buffersSent()).sum();
    }

}
