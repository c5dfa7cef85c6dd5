package io.sluice.ha.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobSubmissionException;
import io.sluice.ha.JobAlreadySubmittedException;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.KillSession;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.InstanceSpec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Job-manager failover on the ZooKeeper HA services against a real ZooKeeper started by the test,
 * with exactly-once keyed counts. The JVM runs with {@code -Dsluice.forbidIoOnMainThread=true}: a
 * ZooKeeper call on a main thread would fail the job (checked: every job FINISHED), and the guard
 * counter shows the checks were made.
 */
class ZooKeeperHaITCase {
    @RegisterExtension
    static final ZooKeeperServerExtension zooKeeper = new ZooKeeperServerExtension();
    private static final List<JobResult> ALL_RESULTS = new CopyOnWriteArrayList<>();

    @TempDir
    Path dir;
    private ZooKeeperHaServices ha;
    private LocalCluster cluster;
    private final List<CollectingSink<?>> sinks = new ArrayList<>();

    @AfterAll
    static void everyJobFinishedWithTheGuardOn() {
        // (g) the guard ran before ZooKeeper calls, and no job failed (a main-thread call would have failed it)
        assertThat(ZooKeeperGuard.checks()).isGreaterThan(100);
        assertThat(ALL_RESULTS).allMatch(r -> r.status() == JobStatus.FINISHED);
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (ha != null) {
            ha.close();
        }
        sinks.forEach(CollectingSink::release);
    }

    private LocalCluster cluster(String connectString, String clusterId, int slots) throws Exception {
        ha = ZkTestSupport.services(connectString, clusterId);
        cluster = LocalCluster.builder().haServices(ha, false).taskExecutors(2).slotsPerTaskExecutor(slots)
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        return cluster;
    }

    private CollectingSink<Tuple2<Long, Long>> sink() {
        CollectingSink<Tuple2<Long, Long>> s = CollectingSink.create();
        sinks.add(s);
        return s;
    }

    private static void assertExactCounts(CollectingSink<Tuple2<Long, Long>> sink, long records) {
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, ZkTestSupport.KEYS));
    }

    private static JobResult result(DispatcherGateway d, JobId id) throws Exception {
        JobResult r = d.requestJobResult(id).get(90, TimeUnit.SECONDS);
        ALL_RESULTS.add(r);
        assertThat(r.status()).as(String.valueOf(r.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        return r;
    }

    private LocalCluster.JobManager standbyKnowing(JobId id, int checkpoints) throws Exception {
        DispatcherGateway first = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                first.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= checkpoints);
        return startStandby();
    }

    /**
     * Starts a second job manager and waits until it has joined the dispatcher election (its latch
     * node exists), so that it, not the restarted leader, takes over. A standby does not recover the
     * stored jobs: it learns of them when it takes over.
     */
    private LocalCluster.JobManager startStandby() throws Exception {
        int before = cluster.jobManagers().size();
        LocalCluster.JobManager standby = cluster.startJobManager();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                ha.client().getChildren().forPath(ha.dispatcherLeaderPath()).size() == before + 1);
        assertThat(standby.dispatcher().isLeader()).isFalse();
        return standby;
    }

    /** (a) and clean-up (4): the leader job manager stops; the standby takes over; nothing is left after the end. */
    @Test
    void runningJobFailsOverToStandbyWithExactCountsAndLeavesNoZnodes() throws Exception {
        cluster(zooKeeper.connectString(), "failover", 4);
        long records = 30_000;
        CollectingSink<Tuple2<Long, Long>> sink = sink();
        JobId id = cluster.submit(ZkTestSupport.countingJob(dir, records, 20_000, sink, 3));
        LocalCluster.JobManager standby = standbyKnowing(id, 3);
        cluster.stopJobManager(cluster.jobManagers().get(0));
        result(standby.dispatcher(), id);
        assertExactCounts(sink, records);

        cluster.close();
        cluster = null;
        // Elections are left asynchronously (on the election thread): wait for the latch znodes to go.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(ZkTestSupport.listRecursively(ha.client(), ha.basePath()))
                        .as("only the job result remains of the finished job")
                        .filteredOn(p -> p.contains(id.value()))
                        .containsExactly(ha.basePath() + "/jobresults/" + id.value()));
    }

    /** (b) the leader's ZooKeeper session expires: revoked, the job continues on the other contender. */
    @Test
    void leaderSessionExpiryMovesTheJobToTheOtherContender() throws Exception {
        cluster(zooKeeper.connectString(), "expiry", 4);
        long records = 30_000;
        CollectingSink<Tuple2<Long, Long>> sink = sink();
        JobId id = cluster.submit(ZkTestSupport.countingJob(dir, records, 20_000, sink, 3));
        LocalCluster.JobManager leader = cluster.jobManagers().get(0);
        LocalCluster.JobManager standby = standbyKnowing(id, 3);
        KillSession.kill(ha.contenderClient(leader.id()).getZookeeperClient().getZooKeeper());
        // The expired session also held the dispatcher leadership: the standby takes it over and recovers the job.
        await().atMost(Duration.ofSeconds(30)).until(() -> standby.dispatcher().isLeader());
        await().atMost(Duration.ofSeconds(30)).until(() ->
                standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).status() == JobStatus.RUNNING
                        || standby.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).status() == JobStatus.FINISHED);
        result(standby.dispatcher(), id);
        assertExactCounts(sink, records);
    }

    /** (c) ZooKeeper restarts while the job runs: the job regains leadership and finishes exactly. */
    @Test
    void zooKeeperRestartDuringARunningJob() throws Exception {
        cluster(zooKeeper.connectString(), "restart", 4);
        long records = 30_000;
        CollectingSink<Tuple2<Long, Long>> sink = sink();
        JobId id = cluster.submit(ZkTestSupport.countingJob(dir, records, 20_000, sink, 3));
        DispatcherGateway d = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                d.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
        zooKeeper.restart();
        result(d, id);
        assertExactCounts(sink, records);
    }

    /**
     * (e) the same job id submitted concurrently to two job managers (twice to the leader, once to the
     * standby): exactly one submission is accepted, the job runs once, to one result. The job graph
     * store's put is a conditional create: a second put of the id is rejected.
     */
    @Test
    void concurrentSubmissionOfTheSameJobId() throws Exception {
        cluster(zooKeeper.connectString(), "submission", 4);
        LocalCluster.JobManager first = cluster.jobManagers().get(0);
        // The first job manager must lead before the race starts (its election is asynchronous).
        assertThat(cluster.dispatcher()).isSameAs(first.dispatcher());
        LocalCluster.JobManager second = startStandby();
        long records = 5_000;
        CollectingSink<Tuple2<Long, Long>> sink = sink();
        JobGraph graph = ZkTestSupport.countingJob(dir, records, 20_000, sink, 1);
        List<CompletableFuture<JobId>> submissions = List.of(first.dispatcher().submitJob(graph),
                second.dispatcher().submitJob(graph), first.dispatcher().submitJob(graph));
        CompletableFuture.allOf(submissions.toArray(CompletableFuture[]::new)).exceptionally(e -> null)
                .get(30, TimeUnit.SECONDS);
        assertThat(submissions).filteredOn(f -> !f.isCompletedExceptionally()).hasSize(1);
        result(cluster.dispatcher(), graph.jobId());
        assertExactCounts(sink, records);
        assertThat(ha.jobResultStore().results()).extracting(JobResult::jobId).containsExactly(graph.jobId());
        assertThat(ha.jobGraphStore().jobIds()).isEmpty();

        JobGraph other = ZkTestSupport.countingJob(dir, 10, 20_000, sink(), 1);
        ha.jobGraphStore().putJobGraph(other);
        assertThatThrownBy(() -> ha.jobGraphStore().putJobGraph(other))
                .isInstanceOf(JobAlreadySubmittedException.class)
                .hasMessageContaining("Job " + other.jobId() + " was already submitted");
        ha.jobGraphStore().removeJobGraph(other.jobId());
    }

    /**
     * Dispatcher leadership: a standby rejects a submission naming the leader; a job submitted to the
     * leader after the standby started is recovered and run by the standby once the leader stops;
     * leader retrieval reports the new leader.
     */
    @Test
    void aJobSubmittedAfterTheStandbyStartedIsRunByTheStandbyAfterTheLeaderStops() throws Exception {
        cluster(zooKeeper.connectString(), "dispatcher", 4);
        List<Optional<String>> seen = new CopyOnWriteArrayList<>();
        ha.dispatcherLeaderRetrieval().addListener(seen::add);
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains(Optional.of("jobmanager-0")));
        LocalCluster.JobManager standby = startStandby();

        long records = 30_000;
        CollectingSink<Tuple2<Long, Long>> sink = sink();
        JobGraph graph = ZkTestSupport.countingJob(dir, records, 20_000, sink, 3);
        assertThatThrownBy(() -> standby.dispatcher().submitJob(graph).get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(JobSubmissionException.class)
                .hasMessageContaining("This job manager (jobmanager-1) is a standby; submit to the leader jobmanager-0");
        JobId id = cluster.submit(graph);
        DispatcherGateway leader = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() ->
                leader.requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
        assertThat(standby.dispatcher().listJobs().get(5, TimeUnit.SECONDS)).isEmpty();

        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(30)).until(() ->
                ha.dispatcherLeaderRetrieval().currentLeader().equals(Optional.of("jobmanager-1")));
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains(Optional.of("jobmanager-1")));
        assertThat(cluster.dispatcher()).isSameAs(standby.dispatcher());
        result(standby.dispatcher(), id);
        assertExactCounts(sink, records);
    }

    /** (f) 100 stored jobs are all recovered and run to the end by a job manager that starts on them. */
    @Test
    void hundredStoredJobsAreRecoveredAndFinish() throws Exception {
        ZooKeeperHaServices stores = zooKeeper.services("hundred");
        List<JobId> ids = new ArrayList<>();
        List<CollectingSink<Long>> jobSinks = new ArrayList<>();
        try (stores) {
            for (int i = 0; i < 100; i++) {
                CollectingSink<Long> s = CollectingSink.create();
                sinks.add(s);
                jobSinks.add(s);
                StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
                env.fromSource(SequenceSource.bounded(0, 9), "seq").addSink(s);
                JobGraph g = env.buildJobGraph("small " + i);
                stores.jobGraphStore().putJobGraph(g);
                ids.add(g.jobId());
            }
        }
        long start = System.nanoTime();
        cluster(zooKeeper.connectString(), "hundred", 50);
        DispatcherGateway d = cluster.dispatcher();
        for (JobId id : ids) {
            result(d, id);
        }
        System.out.printf("100 stored jobs recovered and finished in %d ms%n", (System.nanoTime() - start) / 1_000_000);
        assertThat(jobSinks).allMatch(s -> s.count() == 10);
        assertThat(ha.jobGraphStore().jobIds()).isEmpty();
    }

    /** Failover on a 3-node ZooKeeper ensemble, with one ZooKeeper server killed during the run. */
    @Test
    void failoverOnAThreeNodeEnsembleWithAServerKilled() throws Exception {
        // Each server's files under this test's directory (TestingCluster(3) put them into java.io.tmpdir, and
        // ZooKeeper left a configuration file there for each).
        List<InstanceSpec> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            servers.add(new InstanceSpec(Files.createDirectories(dir.resolve("zookeeper-" + i).resolve("data"))
                    .toFile(), -1, -1, -1, true, -1));
        }
        try (TestingCluster zk = new TestingCluster(servers)) {
            zk.start();
            cluster(zk.getConnectString(), "ensemble", 4);
            long records = 30_000;
            CollectingSink<Tuple2<Long, Long>> sink = sink();
            JobId id = cluster.submit(ZkTestSupport.countingJob(dir, records, 20_000, sink, 3));
            LocalCluster.JobManager standby = standbyKnowing(id, 3);
            InstanceSpec victim = zk.getInstances().iterator().next();
            zk.killServer(victim);
            cluster.stopJobManager(cluster.jobManagers().get(0));
            result(standby.dispatcher(), id);
            assertExactCounts(sink, records);
            cluster.close();
            cluster = null;
            ha.close();
            ha = null;
        }
    }
}
