package io.sluice.ha.zookeeper;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.config.Configuration;
import io.sluice.config.HighAvailabilityOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.ha.loader.HighAvailabilityServicesLoader;
import io.sluice.ha.LeaderContender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.curator.utils.ZKPaths;

/** Helpers of the ZooKeeper HA tests. */
final class ZkTestSupport {
    static final int KEYS = 8;

    private ZkTestSupport() {}

    /** Configuration selecting the ZooKeeper HA services through the loader, with test-friendly timeouts. */
    /**
     * Curator's test server with every file it writes under {@code directory} (its data directory, and the
     * {@code zookeeper.configuration<n>.properties} file ZooKeeper's embedded server writes beside it, which
     * {@code new TestingServer(true)} left in {@code java.io.tmpdir} for good), on random free ports.
     */
    static TestingServer startServer(Path directory) throws Exception {
        Path data = Files.createDirectories(directory.resolve("data"));
        return new TestingServer(new InstanceSpec(data.toFile(), -1, -1, -1, true, -1), true);
    }

    static Configuration config(String connectString, String clusterId) {
        return new Configuration()
                .set(HighAvailabilityOptions.TYPE, HighAvailabilityServicesLoader.ZOOKEEPER)
                .set(ZooKeeperHaOptions.QUORUM, connectString)
                .set(ZooKeeperHaOptions.CLUSTER_ID, clusterId)
                .set(ZooKeeperHaOptions.SESSION_TIMEOUT, Duration.ofSeconds(10))
                .set(ZooKeeperHaOptions.CONNECTION_TIMEOUT, Duration.ofSeconds(5));
    }

    static ZooKeeperHaServices services(String connectString, String clusterId) throws Exception {
        return (ZooKeeperHaServices) HighAvailabilityServicesLoader.load(config(connectString, clusterId));
    }

    static JobGraph countingJob(Path dir, long records, double rate, CollectingSink<Tuple2<Long, Long>> sink,
                                int retained) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(20))
                .setRetainedCheckpoints(retained)
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(rate), KEYS,
                InjectedFailures.none(), sink);
        return env.buildJobGraph("zookeeper counting");
    }

    /** Every znode under {@code path} (depth first), or none if it does not exist. */
    static List<String> listRecursively(CuratorFramework client, String path) throws Exception {
        List<String> out = new ArrayList<>();
        if (client.checkExists().forPath(path) == null) {
            return out;
        }
        for (String child : client.getChildren().forPath(path)) {
            String p = ZKPaths.makePath(path, child);
            out.add(p);
            out.addAll(listRecursively(client, p));
        }
        return out;
    }

    /** A contender recording grants and revocations, with the threads they arrived on. */
    static final class Contender implements LeaderContender {
        final BlockingQueue<UUID> grants = new LinkedBlockingQueue<>();
        final BlockingQueue<Boolean> revocations = new LinkedBlockingQueue<>();
        final List<String> threads = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final String name;

        Contender(String name) {
            this.name = name;
        }

        @Override
        public void grantLeadership(UUID leaderSessionId) {
            threads.add(Thread.currentThread().getName());
            grants.add(leaderSessionId);
        }

        @Override
        public void revokeLeadership() {
            threads.add(Thread.currentThread().getName());
            revocations.add(Boolean.TRUE);
        }

        @Override
        public String description() {
            return "test contender " + name;
        }
    }
}
