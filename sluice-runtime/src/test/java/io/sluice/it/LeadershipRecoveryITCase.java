package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.ha.embedded.EmbeddedHaServices;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour Sluice exists for: checkpoint metadata is recovered once per leadership session,
 * asynchronously; while storage hangs or refuses connections, the job manager keeps answering
 * (INITIALIZING with progress) and cancel works; when storage returns, the job resumes from its
 * latest checkpoint with exact state; task failover reads no metadata at all.
 */
class LeadershipRecoveryITCase {
    private static final int KEYS = 8;

    @TempDir
    Path dir;
    private final AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;
    private InjectedFailures failures = InjectedFailures.none();

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults))
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        sink = CollectingSink.create();
    }

    @AfterEach
    void stop() {
        FaultInjectingBlobStore f = faults.get();
        if (f != null) {
            f.heal();
        }
        cluster.close();
        sink.release();
        failures.release();
    }

    private JobGraph countingJob(long records, double rate) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(20))
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(rate), KEYS, failures, sink);
        return env.buildJobGraph("leadership recovery");
    }

    private JobDetails details(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }

    private CheckpointStorage storage() {
        return cluster.checkpointStorages().forLocation(dir.resolve("checkpoints").toString());
    }

    /** Runs the job until it has completed {@code n} checkpoints, then moves it to a second job manager. */
    private LocalCluster.JobManager failOverToStandbyAfterCheckpoints(JobId id, int n) throws Exception {
        DispatcherGateway first = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() -> details(first, id).checkpoints().completed() >= n);
        LocalCluster.JobManager standby = cluster.startJobManager();
        // With dispatcher leadership a standby does not recover the stored jobs: it learns of the job
        // when it takes over (after the leader stops), so wait only until it is known not to lead.
        await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
        assertThat(standby.dispatcher().isLeader()).isFalse();
        return standby;
    }

    /**
     * Stops the first job manager (the leader) and waits until the standby leads the dispatcher: a
     * standby answers for a job only once it has taken over and recovered it.
     */
    private void stopLeaderAndAwaitTakeover(LocalCluster.JobManager standby) throws Exception {
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        assertThat(cluster.haServices().dispatcherLeaderRetrieval().currentLeader()).contains(standby.id());
    }

    /**
     * Runs the job to {@code n} completed checkpoints, makes storage hang, moves the job to a
     * standby and waits until the standby's recovery is stuck in a storage call.
     */
    private LocalCluster.JobManager failOverWhileStorageHangs(JobId id, int n) throws Exception {
        LocalCluster.JobManager standby = failOverToStandbyAfterCheckpoints(id, n);
        FaultInjectingBlobStore storage = faults.get();
        storage.hang();
        stopLeaderAndAwaitTakeover(standby);
        // Stuck in the standby's own read, not only in some call (a task's upload, the old leader's last listing of
        // abandoned uploads, AbandonedUploads): a blocked call alone let a test go on before the recovery began.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            JobDetails d = details(standby.dispatcher(), id);
            return storage.blockedCalls() > 0 && d.recovery() != null && d.recovery().attempt() >= 1
                    && String.valueOf(d.recovery().phase()).contains("reading metadata of checkpoint");
        });
        return standby;
    }

    private void assertExactCounts(long records) {
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    @Test
    void storageHangingAtLeadershipGrant_statusIsAnsweredAndCancelWorks() throws Exception {
        JobId id = cluster.submit(countingJob(1_000_000, 20_000));
        LocalCluster.JobManager standby = failOverWhileStorageHangs(id, 2);
        FaultInjectingBlobStore storage = faults.get();
        DispatcherGateway dispatcher = standby.dispatcher();
        for (int i = 0; i < 200; i++) {
            JobDetails d = details(dispatcher, id);
            assertThat(d.status()).isEqualTo(JobStatus.INITIALIZING);
            assertThat(d.recovery()).isNotNull();
            assertThat(d.recovery().attempt()).isEqualTo(1);
            assertThat(dispatcher.listJobs().get(5, TimeUnit.SECONDS)).anyMatch(j -> j.jobId().equals(id));
        }
        assertThat(details(dispatcher, id).recovery().phase()).contains("reading metadata of checkpoint");

        int hungBeforeCancel = storage.blockedCalls();
        dispatcher.cancelJob(id).get(5, TimeUnit.SECONDS);
        JobResult result = dispatcher.requestJobResult(id).get(10, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
        // The recovery's hung storage call was interrupted and gave up its thread.
        await().atMost(Duration.ofSeconds(10)).until(() -> storage.blockedCalls() < hungBeforeCancel);
    }

    @Test
    void storageHangingAtLeadershipGrant_releasingItResumesWithRestoredState() throws Exception {
        long records = 120_000; // 6 s at the source's rate: the job must still run when it fails over on a loaded machine
        JobId id = cluster.submit(countingJob(records, 20_000));
        LocalCluster.JobManager standby = failOverWhileStorageHangs(id, 3);
        FaultInjectingBlobStore storage = faults.get();
        DispatcherGateway dispatcher = standby.dispatcher();
        assertThat(details(dispatcher, id).status()).isEqualTo(JobStatus.INITIALIZING);

        storage.heal();
        JobResult result = dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        assertExactCounts(records);
        JobDetails d = details(dispatcher, id);
        assertThat(d.recovery().metadataLoaded()).as("only the latest checkpoint's metadata is loaded").isEqualTo(1);
    }

    @Test
    void storageRefusingConnections_attemptsAndLastErrorShowThenTheJobResumesExactly() throws Exception {
        long records = 120_000; // 6 s at the source's rate: the job must still run when it fails over on a loaded machine
        JobId id = cluster.submit(countingJob(records, 20_000));
        LocalCluster.JobManager standby = failOverToStandbyAfterCheckpoints(id, 3);
        FaultInjectingBlobStore storage = faults.get();
        storage.refuseConnections();
        stopLeaderAndAwaitTakeover(standby);
        DispatcherGateway dispatcher = standby.dispatcher();

        await().atMost(Duration.ofSeconds(20)).until(() -> {
            JobDetails d = details(dispatcher, id);
            return d.recovery() != null && d.recovery().attempt() >= 3;
        });
        JobDetails d = details(dispatcher, id);
        assertThat(d.status()).isEqualTo(JobStatus.INITIALIZING);
        assertThat(d.recovery().lastError()).contains("Connection refused")
                .as("the error names the storage location").contains("file://");

        storage.heal();
        JobResult result = dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        assertExactCounts(records);
    }

    @Test
    void taskFailoverAfterFiveCheckpointsReadsNoMetadata() throws Exception {
        // 6 s of input at the source's rate; the failure is armed only once five checkpoints (of 20 ms) completed
        // (a record-number trigger fired before them on a loaded machine), and the job then reads to the end.
        long records = 120_000;
        failures.release();
        failures = InjectedFailures.onceArmed();
        JobId id = cluster.submit(countingJob(records, 20_000));
        DispatcherGateway dispatcher = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() -> details(dispatcher, id).checkpoints().completed() >= 5);
        long readsBefore = storage().metadataReads();
        assertThat(failures.thrown()).isZero();
        failures.arm();

        JobResult result = dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertThat(failures.thrown()).isEqualTo(1);
        assertThat(details(dispatcher, id).restarts()).isEqualTo(1);
        assertThat(storage().metadataReads()).as("metadata reads during task failover").isEqualTo(readsBefore);
        assertExactCounts(records);
    }

    @Test
    void revokeDuringRecovery_recoveryStopsAndTheNextGrantRecovers() throws Exception {
        long records = 120_000; // 6 s at the source's rate: the job must still run when it fails over on a loaded machine
        JobId id = cluster.submit(countingJob(records, 20_000));
        LocalCluster.JobManager standby = failOverWhileStorageHangs(id, 3);
        FaultInjectingBlobStore storage = faults.get();
        DispatcherGateway dispatcher = standby.dispatcher();

        EmbeddedHaServices ha = (EmbeddedHaServices) cluster.haServices();
        int hungBeforeRevoke = storage.blockedCalls();
        long callsBeforeRevoke = storage.calls();
        assertThat(ha.leaderElectionService().revokeLeader(EmbeddedHaServices.jobLeadershipName(id))).isTrue();
        // The revoked session's recovery is interrupted (its hung call ends); the contender is granted
        // again (it is the only one) and a new recovery starts, which makes a new call and hangs in turn.
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            JobDetails d = details(dispatcher, id);
            return d.status() == JobStatus.INITIALIZING && d.recovery() != null && d.recovery().attempt() == 1
                    && storage.calls() > callsBeforeRevoke && storage.blockedCalls() == hungBeforeRevoke;
        });
        storage.heal();
        JobResult result = dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        assertExactCounts(records);
    }

    @Test
    void leadershipMovesBetweenTwoJobManagers_theJobContinuesWithExactState() throws Exception {
        long records = 120_000; // 6 s at the source's rate: the job must still run when it fails over on a loaded machine
        JobId id = cluster.submit(countingJob(records, 20_000));
        LocalCluster.JobManager standby = failOverToStandbyAfterCheckpoints(id, 3);
        long metadataReads = storage().metadataReads();
        long stateReads = storage().stateReads();
        stopLeaderAndAwaitTakeover(standby);
        JobResult result = standby.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        JobDetails d = details(standby.dispatcher(), id);
        assertThat(d.recovery().metadataLoaded()).isEqualTo(1);
        assertThat(storage().metadataReads() - metadataReads).as("the latest checkpoint's metadata, once").isEqualTo(1);
        assertThat(storage().stateReads()).as("the small state is inline in that metadata").isEqualTo(stateReads);
        assertExactCounts(records);
    }

    @Test
    void aCorruptLatestCheckpointFallsBackToThePreviousOneAndSaysSo() throws Exception {
        long records = 120_000; // 6 s at the source's rate: the job must still run when it fails over on a loaded machine
        JobId id = cluster.submit(countingJob(records, 20_000));
        // Stop the leader first so that no new checkpoint completes, then corrupt the latest one.
        LocalCluster.JobManager standby = failOverWhileStorageHangs(id, 3);
        FaultInjectingBlobStore storage = faults.get();
        // The latest checkpoint is the one with the newest pointer in the HA directory (a newer
        // _metadata without a pointer is not a completed checkpoint).
        long latestId;
        try (Stream<Path> s = Files.list(dir.resolve("ha").resolve("checkpoints").resolve(id.value()))) {
            latestId = s.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+"))
                    .mapToLong(Long::parseLong).max().orElseThrow();
        }
        Path latest = dir.resolve("checkpoints").resolve(id.value()).resolve("chk-" + latestId);
        byte[] bytes = Files.readAllBytes(latest.resolve("_metadata"));
        bytes[bytes.length / 2] ^= 0x5A;
        Files.write(latest.resolve("_metadata"), bytes);
        storage.heal();

        JobResult result = standby.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        JobDetails d = details(standby.dispatcher(), id);
        assertThat(d.recovery().events()).anySatisfy(e -> assertThat(e)
                .contains("Checkpoint " + checkpointId(latest)).contains("falling back"));
        assertExactCounts(records);
    }

    private static long checkpointId(Path chkDir) {
        return Long.parseLong(chkDir.getFileName().toString().substring("chk-".length()));
    }
}
