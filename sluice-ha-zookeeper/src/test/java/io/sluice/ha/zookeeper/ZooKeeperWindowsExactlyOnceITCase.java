package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.it.WindowedEventsJob;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly-once of event-time windows on ZooKeeper HA (a real ZooKeeper started by the test): the
 * windowed job of {@code WindowPropertyITCase} (tumbling, sliding and session windows over a seeded
 * random event stream with bounded disorder) with three random task failures and, once it has
 * completed checkpoints, a job-manager failover to a standby that recovers the job, its windows and
 * their timers from ZooKeeper and the checkpoints. The last value emitted per (kind, key, window)
 * equals the plain-Java reference, for every seed of {@link WindowedEventsJob#SEEDS} (printed).
 */
class ZooKeeperWindowsExactlyOnceITCase {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();

    @TempDir
    Path dir;

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1L, 42L, 20261201L}) // = WindowedEventsJob.SEEDS
    void lastValuePerWindowEqualsTheReferenceAfterTaskFailuresAndAJobManagerFailover(long seed) throws Exception {
        System.out.println("ZooKeeperWindowsExactlyOnceITCase: seed " + seed);
        long events = 12_000;
        SplittableRandom random = new SplittableRandom(seed);
        Set<Long> failAt = new HashSet<>();
        while (failAt.size() < 3) {
            failAt.add(events / 10 + random.nextLong(events * 8 / 10));
        }
        InjectedFailures failures = InjectedFailures.at(failAt);
        CollectingSink<Tuple2<String, Long>> sink = CollectingSink.create();
        ZooKeeperHaServices ha = zooKeeper.services("windows-" + seed);
        try (LocalCluster cluster = LocalCluster.builder().haServices(ha, false).taskExecutors(1).slotsPerTaskExecutor(4)
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(30))
                    .setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(20, Duration.ofMillis(10)));
            WindowedEventsJob.build(env, seed, events, 6_000, failures, sink);
            JobId id = cluster.submit(env.buildJobGraph("windows exactly-once on ZooKeeper, seed " + seed));
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);

            // A standby joins the dispatcher election (its latch node exists), then the leader stops mid-job.
            int contenders = cluster.jobManagers().size();
            LocalCluster.JobManager standby = cluster.startJobManager();
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    ha.client().getChildren().forPath(ha.dispatcherLeaderPath()).size() == contenders + 1);
            assertThat(cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).status())
                    .as("the failover comes in the middle of the job").isNotEqualTo(JobStatus.FINISHED);
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> standby.dispatcher().isLeader());

            JobResult result = standby.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(failures.thrown()).as("task failures injected").isPositive();
            Map<String, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).as("seed %d: last value per (kind, key, window)", seed)
                    .isEqualTo(WindowedEventsJob.reference(seed, events));
        } finally {
            ha.close();
            failures.release();
            sink.release();
        }
    }
}
