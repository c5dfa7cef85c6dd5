package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Property-style: a seeded random event stream whose disorder is bounded by
 * {@link WindowedEventsJob#DISORDER} goes through tumbling (aggregate), sliding and session (process) event-time windows; the results per
 * (window kind, key, window) equal a plain-Java reference computation over the same events, for
 * parallelism 1, 2 and 4 and every seed of {@link WindowedEventsJob#SEEDS} (each printed). Then exactly-once: the same
 * job with random task failures and a job-manager failover in the middle (embedded HA on a temporary
 * directory; {@code ZooKeeperWindowsExactlyOnceITCase} in sluice-ha-zookeeper runs it on ZooKeeper):
 * the last value emitted per (kind, key, window) equals the reference.
 */
class WindowPropertyITCase {
    static final long[] SEEDS = WindowedEventsJob.SEEDS;

    @TempDir
    Path dir;

    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 4})
    void windowsEqualTheReferenceForEverySeed(int parallelism) throws Exception {
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(4).build()) {
            for (long seed : SEEDS) {
                long events = 3_000;
                System.out.println("WindowPropertyITCase: seed " + seed + ", parallelism " + parallelism);
                CollectingSink<Tuple2<String, Long>> sink = CollectingSink.create();
                InjectedFailures none = InjectedFailures.none();
                try {
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(parallelism);
                    WindowedEventsJob.build(env, seed, events, 0, none, sink);
                    JobId id = cluster.submit(env.buildJobGraph("windows, seed " + seed));
                    JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
                    assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
                    Map<String, Long> actual = new HashMap<>();
                    for (Tuple2<String, Long> r : sink.results()) {
                        assertThat(actual.put(r.f0(), r.f1())).as("seed %d: %s emitted twice (no late data, no failures)",
                                seed, r.f0()).isNull();
                    }
                    assertThat(actual).as("seed %d, parallelism %d", seed, parallelism).isEqualTo(WindowedEventsJob.reference(seed, events));
                } finally {
                    sink.release();
                    none.release();
                }
            }
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 42L, 20261201L}) // = SEEDS
    void exactlyOnceWithTaskFailuresAndAJobManagerFailover(long seed) throws Exception {
        System.out.println("WindowPropertyITCase: exactly-once, seed " + seed);
        long events = 12_000;
        SplittableRandom r = new SplittableRandom(seed);
        Set<Long> failAt = new HashSet<>();
        while (failAt.size() < 3) {
            failAt.add(events / 10 + r.nextLong(events * 8 / 10));
        }
        InjectedFailures failures = InjectedFailures.at(failAt);
        CollectingSink<Tuple2<String, Long>> sink = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha-" + seed))
                .taskExecutors(1).slotsPerTaskExecutor(4).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(30))
                    .setCheckpointDir(dir.resolve("checkpoints-" + seed).toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(20, Duration.ofMillis(10)));
            WindowedEventsJob.build(env, seed, events, 6_000, failures, sink);
            JobId id = cluster.submit(env.buildJobGraph("windows exactly-once, seed " + seed));
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
            LocalCluster.JobManager standby = cluster.startJobManager();
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
            JobResult result = standby.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(failures.thrown()).as("task failures injected").isPositive();
            Map<String, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).as("seed %d: last value per (kind, key, window)", seed).isEqualTo(WindowedEventsJob.reference(seed, events));
        } finally {
            failures.release();
            sink.release();
        }
    }
}
