package io.sluice.ha.zookeeper.bench;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.ha.zookeeper.ZooKeeperHaOptions;
import io.sluice.ha.zookeeper.ZooKeeperHaServices;
import io.sluice.job.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * Leader-failover time on the ZooKeeper HA services: a running keyed counting job with N retained
 * checkpoints; the leader job manager stops; measured from the moment the leader's loss is
 * detected (its leader node is deleted when it leaves the election) to the job being RUNNING on
 * the standby. Median of 5 runs for N = 1, 10, 50. Not part of the test run:
 * <pre>
 * java -cp ... io.sluice.ha.zookeeper.bench.ZooKeeperFailoverBenchmark [runs]   (docs/benchmarks.md, "ZooKeeper HA")
 * </pre>
 * Everything it writes (the embedded ZooKeeper's data, each run's checkpoints) is deleted before it exits.
 */
public final class ZooKeeperFailoverBenchmark {
    public static void main(String[] args) throws Exception {
        int runs = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        // The embedded server's data (and the properties file ZooKeeper writes beside it) and each run's
        // checkpoints live in one directory, deleted at the end.
        Path base = Files.createTempDirectory("sluice-zk-bench");
        Path data = Files.createDirectories(base.resolve("zookeeper").resolve("data"));
        try (TestingServer zk = new TestingServer(new InstanceSpec(data.toFile(), -1, -1, -1, true, -1), true)) {
            for (int retained : new int[] {1, 10, 50}) {
                List<Long> micros = new ArrayList<>();
                for (int run = 0; run < runs; run++) {
                    Path dir = Files.createDirectory(base.resolve("run-" + retained + "-" + run));
                    micros.add(oneRun(zk.getConnectString(), retained, "bench-" + retained + "-" + run, dir));
                }
                List<Long> sorted = new ArrayList<>(micros);
                sorted.sort(null);
                System.out.printf("retained=%d failover median=%.1f ms runs=%s%n", retained,
                        sorted.get(sorted.size() / 2) / 1000.0, micros.stream().map(m -> m / 1000 + " ms").toList());
            }
        } finally {
            deleteRecursively(base);
        }
        // The clusters' non-daemon threads of a failed run would keep the JVM alive.
        System.exit(0);
    }

    private static long oneRun(String quorum, int retained, String clusterId, Path dir) throws Exception {
        Configuration config = new Configuration()
                .set(HighAvailabilityOptions.TYPE, HighAvailabilityServicesLoader.ZOOKEEPER)
                .set(ZooKeeperHaOptions.QUORUM, quorum)
                .set(ZooKeeperHaOptions.CLUSTER_ID, clusterId);
        ZooKeeperHaServices ha = (ZooKeeperHaServices) HighAvailabilityServicesLoader.load(config);
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().haServices(ha, true).taskExecutors(2)
                .slotsPerTaskExecutor(2).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(10)).setRetainedCheckpoints(retained)
                    .setCheckpointDir(dir.resolve("checkpoints").toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
            KeyedCountingJob.build(env, SequenceSource.bounded(0, 100_000_000L).withRate(5_000), 8,
                    InjectedFailures.none(), sink);
            JobGraph graph = env.buildJobGraph("failover benchmark");
            JobId id = cluster.submit(graph);
            var first = cluster.dispatcher();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() < retained + 2) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("job did not complete " + (retained + 2) + " checkpoints");
                }
                Thread.sleep(5);
            }
            LocalCluster.JobManager standby = cluster.startJobManager();
            // Leader loss is detected when the leader job manager's dispatcher latch node goes (a standby
            // joins a job's election only once it leads the dispatcher): watch the dispatcher latch children.
            String latch = ha.dispatcherLeaderPath();
            while (ha.client().getChildren().forPath(latch).size() < 2) { // the standby's latch node is created asynchronously
                Thread.sleep(1);
            }
            int before = 2;
            cluster.stopJobManager(cluster.jobManagers().get(0));
            long lost;
            while (true) {
                if (ha.client().getChildren().forPath(latch).size() < before) {
                    lost = System.nanoTime();
                    break;
                }
                Thread.sleep(1);
            }
            while (!standby.dispatcher().isLeader()) {
                Thread.sleep(1);
            }
            while (standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).status() != JobStatus.RUNNING) {
                Thread.sleep(1);
            }
            long took = (System.nanoTime() - lost) / 1000;
            standby.dispatcher().cancelJob(id).get(10, TimeUnit.SECONDS);
            return took;
        } finally {
            sink.release();
        }
    }

    private static void deleteRecursively(Path dir) throws java.io.IOException {
        try (java.util.stream.Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }
}
