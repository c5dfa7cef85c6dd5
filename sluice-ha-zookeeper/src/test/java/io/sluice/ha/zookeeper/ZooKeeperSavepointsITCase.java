package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.checkpoint.Savepoint;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.SavepointEntry;
import io.sluice.ha.SavepointStore;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.protocol.DispatcherGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.utils.ZKPaths;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints with the ZooKeeper HA services against a real ZooKeeper (Curator's TestingServer): their
 * entries live in {@code <base>/savepoints/<jobId>/<id>}, so a job manager that takes over and a cluster
 * restarted on the same cluster id list the savepoints taken before; a corrupt entry is skipped, a listed
 * savepoint restores with exact keyed counts, and the store keeps only the newest entries it is told to.
 */
class ZooKeeperSavepointsITCase {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();
    private static final long RECORDS = 400_000;

    @TempDir
    Path dir;
    private ZooKeeperHaServices ha;
    private LocalCluster cluster;
    private final List<CollectingSink<?>> sinks = new ArrayList<>();

    @AfterEach
    void stop() {
        closeCluster();
        sinks.forEach(CollectingSink::release);
    }

    private void closeCluster() {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
        if (ha != null) {
            ha.close();
            ha = null;
        }
    }

    private LocalCluster cluster(String clusterId) throws Exception {
        ha = ZkTestSupport.services(zooKeeper.connectString(), clusterId);
        cluster = LocalCluster.builder().haServices(ha, false).taskExecutors(2).slotsPerTaskExecutor(2)
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        return cluster;
    }

    private JobGraph countingJob(CollectingSink<Tuple2<Long, Long>> sink, double rate) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(50))
                .setCheckpointDir(dir.resolve("checkpoints").toString());
        SequenceSource source = SequenceSource.bounded(0, RECORDS - 1);
        KeyedCountingJob.build(env, rate > 0 ? source.withRate(rate) : source, ZkTestSupport.KEYS,
                InjectedFailures.none(), sink);
        return env.buildJobGraph("zookeeper savepoints");
    }

    private CollectingSink<Tuple2<Long, Long>> sink() {
        CollectingSink<Tuple2<Long, Long>> s = CollectingSink.create();
        sinks.add(s);
        return s;
    }

    private static List<Savepoint> listed(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.listSavepoints(id).get(30, TimeUnit.SECONDS);
    }

    @Test
    void aNewLeaderAndARestartedClusterListTheSavepointsTakenBeforeAndOneOfThemRestoresExactly() throws Exception {
        cluster("savepoints");
        JobId id = cluster.submit(countingJob(sink(), 20_000));
        DispatcherGateway first = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(60)).until(() ->
                first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 2);
        Savepoint running = first.triggerSavepoint(id, dir.resolve("savepoints").toString(), false)
                .get(60, TimeUnit.SECONDS);
        assertThat(listed(first, id)).containsExactly(running);

        int before = cluster.jobManagers().size();
        LocalCluster.JobManager standby = cluster.startJobManager();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                ha.client().getChildren().forPath(ha.dispatcherLeaderPath()).size() == before + 1);
        assertThat(standby.dispatcher().isLeader()).isFalse();
        assertThat(listed(standby.dispatcher(), id)).as("a standby reads the job's entries from ZooKeeper")
                .containsExactly(running);
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(30)).until(() -> standby.dispatcher().isLeader());
        assertThat(listed(standby.dispatcher(), id)).as("the new leader lists the savepoint taken before")
                .containsExactly(running);

        await().atMost(Duration.ofSeconds(60)).until(() ->
                standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).status() == JobStatus.RUNNING);
        Savepoint stopped = standby.dispatcher().triggerSavepoint(id, dir.resolve("savepoints").toString(), true)
                .get(60, TimeUnit.SECONDS);
        assertThat(standby.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS).status())
                .isEqualTo(JobStatus.CANCELED);
        assertThat(listed(standby.dispatcher(), id)).containsExactly(running, stopped);

        // A corrupt entry beside them is skipped; the others are listed by a cluster restarted on the same id.
        String jobDir = ZKPaths.makePath(ZKPaths.makePath(ha.basePath(), "savepoints"), id.value());
        assertThat(ha.client().getChildren().forPath(jobDir)).as("ZooKeeper lists children in no order")
                .containsExactlyInAnyOrder(
                SavepointEntry.nameOf(running.checkpointId()), SavepointEntry.nameOf(stopped.checkpointId()));
        ha.client().create().forPath(ZKPaths.makePath(jobDir, SavepointEntry.nameOf(stopped.checkpointId() + 1)),
                "not an entry".getBytes(StandardCharsets.UTF_8));
        closeCluster();

        cluster("savepoints");
        DispatcherGateway restarted = cluster.dispatcher();
        assertThat(listed(restarted, id)).as("a restarted cluster lists the savepoints of the ended job")
                .containsExactly(running, stopped);

        CollectingSink<Tuple2<Long, Long>> restoredSink = sink();
        JobId restored = cluster.submit(countingJob(restoredSink, 0), stopped.path());
        JobResult end = restarted.requestJobResult(restored).get(2, TimeUnit.MINUTES);
        assertThat(end.status()).as(String.valueOf(end.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(restoredSink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, ZkTestSupport.KEYS));
    }

    @Test
    void theStoreKeepsTheNewestEntriesPerJobAndReportsUnreadableOnes() throws Exception {
        ha = ZkTestSupport.services(zooKeeper.connectString(), "savepoint-store");
        SavepointStore store = ha.savepointStore();
        JobId a = JobId.generate();
        JobId b = JobId.generate();
        List<Savepoint> ofA = new ArrayList<>();
        for (long cp = 1; cp <= 5; cp++) {
            Savepoint s = new Savepoint(a, cp, "file:///savepoints/savepoint-" + cp + " with a space", 1000 + cp,
                    2000 + cp, 100 * cp);
            store.addSavepoint(s, 3);
            ofA.add(s);
        }
        store.addSavepoint(ofA.get(4), 3); // idempotent
        Savepoint ofB = new Savepoint(b, 7, "s3://bucket/sp/savepoint-7", 1, 2, 3);
        store.addSavepoint(ofB, 3);
        String dirOfB = ZKPaths.makePath(ZKPaths.makePath(ha.basePath(), "savepoints"), b.value());
        ha.client().create().forPath(ZKPaths.makePath(dirOfB, SavepointEntry.nameOf(8)), new byte[] {1, 2, 3});

        SavepointStore.Stored stored = store.savepoints();
        assertThat(stored.byJob()).containsOnlyKeys(a, b);
        assertThat(stored.byJob().get(a)).containsExactlyElementsOf(ofA.subList(2, 5));
        assertThat(stored.byJob().get(b)).containsExactly(ofB);
        assertThat(stored.unreadable()).singleElement().asString().contains(dirOfB).contains("unreadable");
        assertThat(store.savepoints(a).byJob().get(a)).containsExactlyElementsOf(ofA.subList(2, 5));
    }
}
