package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.checkpoint.CheckpointMetadataSerializer;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.StateBackendType;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.jobmaster.RecoveryBackoff;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checkpoints on S3 end to end: a LocalCluster whose checkpoint location is
 * {@code s3://bucket/checkpoints} on a real S3 server in this JVM (S3Proxy), reached through a
 * {@link TcpFaultProxy}, with embedded HA in a temporary directory. Includes the production failure
 * Sluice exists for: S3 refusing connections while a job master gains leadership.
 *
 * <p>The tests that check exact counts run once per state backend: keyed state on the heap (small,
 * inline in the metadata) and in RocksDB with incremental checkpoints ({@code state.backend: rocksdb},
 * {@code state.backend.incremental: true}: RocksDB's table files uploaded to {@code <jobId>/shared/} on S3,
 * restored from there after the failures). Every metadata file written is recorded on its way to S3, so a
 * RocksDB run also checks that its checkpoints were incremental and shared files between checkpoints,
 * and a heap run that none was.
 */
class S3CheckpointingITCase {
    private static final int KEYS = 8;
    private static final String LOCATION = "s3://bucket/checkpoints";
    private static S3ProxyServer server;

    @TempDir
    Path dir;
    private TcpFaultProxy proxy;
    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;
    private InjectedFailures failures = InjectedFailures.none();
    private final AtomicReference<BlobStore> rawStore = new AtomicReference<>();
    /** Every {@code _metadata} written to checkpoint storage (also of checkpoints subsumed since), by path. */
    private final Map<String, byte[]> metadataWritten = new ConcurrentHashMap<>();
    /** Every shared file uploaded (RocksDB's table files of incremental checkpoints). */
    private final Set<String> sharedFilesWritten = ConcurrentHashMap.newKeySet();

    @BeforeAll
    static void startS3() throws Exception {
        server = S3ProxyServer.start("bucket");
    }

    @AfterAll
    static void stopS3() throws Exception {
        server.close();
    }

    @BeforeEach
    void start() throws Exception {
        proxy = new TcpFaultProxy("127.0.0.1", server.port());
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .configuration(S3ProxyServer.clientConfiguration(proxy.httpEndpoint())
                        .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString()))
                .blobStoreDecorator(store -> {
                    rawStore.set(store);
                    return new ForwardingBlobStore(store) {
                        @Override
                        public void put(String path, byte[] data) {
                            super.put(path, data);
                            if (path.endsWith("/_metadata")) {
                                metadataWritten.put(path, data);
                            } else if (path.contains("/shared/")) {
                                sharedFilesWritten.add(path);
                            }
                        }

                        @Override
                        public void put(String path, io.sluice.storage.BlobContent content) {
                            super.put(path, content); // state files (shared ones among them) are streamed
                            if (path.contains("/shared/")) {
                                sharedFilesWritten.add(path);
                            }
                        }
                    };
                })
                .recoveryBackoff(new RecoveryBackoff(Duration.ofMillis(20), Duration.ofMillis(200), 2.0, 0.2))
                .build();
        sink = CollectingSink.create();
    }

    @AfterEach
    void stop() throws Exception {
        proxy.heal();
        cluster.close();
        proxy.close();
        sink.release();
        failures.release();
    }

    private JobGraph countingJob(long records, double rate, int tolerableCheckpointFailures) {
        return countingJob(records, rate, tolerableCheckpointFailures, StateBackendType.HEAP);
    }

    private JobGraph countingJob(long records, double rate, int tolerableCheckpointFailures, StateBackendType backend) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setStateBackend(backend).setIncrementalCheckpoints(true) // the heap ignores incremental
                .enableCheckpointing(Duration.ofMillis(50))
                .setCheckpointDir(LOCATION)
                .setTolerableCheckpointFailures(tolerableCheckpointFailures)
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(rate), KEYS, failures, sink);
        return env.buildJobGraph("s3 checkpoints");
    }

    private static JobDetails details(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }

    private LocalCluster.JobManager standbyAfterCheckpoints(JobId id, int n) throws Exception {
        DispatcherGateway first = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() -> details(first, id).checkpoints().completed() >= n);
        // A standby recovers the job only once it leads the dispatcher (after the leader stops).
        return cluster.startJobManager();
    }

    private void assertExactCounts(long records) {
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    /**
     * The kind of the job's checkpoints, from every metadata file written to S3: with RocksDB all keyed state
     * is RocksDB's files, its table files under the job's shared directory, and later checkpoints referred to
     * files that earlier ones uploaded (fewer uploads than references); on the heap nothing is incremental and
     * nothing was uploaded to a shared directory.
     */
    private void assertCheckpointKind(JobId id, StateBackendType backend) {
        CheckpointMetadataSerializer serializer = new CheckpointMetadataSerializer();
        List<CompletedCheckpoint> checkpoints = new ArrayList<>();
        metadataWritten.forEach((path, data) -> {
            if (path.startsWith(id.value() + "/")) {
                checkpoints.add(serializer.deserialize(data, path));
            }
        });
        checkpoints.sort(Comparator.comparingLong(CompletedCheckpoint::checkpointId));
        List<TaskStateHandle> keyed = checkpoints.stream().flatMap(cp -> cp.taskStates().stream())
                .filter(TaskStateHandle::hasKeyedState).toList();
        assertThat(keyed).as("keyed state in the job's checkpoints").isNotEmpty();
        if (backend == StateBackendType.HEAP) {
            assertThat(keyed).as("heap checkpoints").noneMatch(TaskStateHandle::isIncremental);
            assertThat(sharedFilesWritten).as("shared files uploaded by heap checkpoints").isEmpty();
            System.out.printf("S3 checkpoints, heap: %d checkpoints, none incremental%n", checkpoints.size());
            return;
        }
        assertThat(keyed).as("RocksDB checkpoints with state.backend.incremental").allMatch(TaskStateHandle::isIncremental);
        String sharedDirectory = SharedStateRegistry.sharedDirectory(id) + "/";
        Set<String> seen = new HashSet<>();
        long references = 0;
        long reused = 0;
        for (CompletedCheckpoint cp : checkpoints) {
            Set<String> own = new HashSet<>();
            for (TaskStateHandle h : cp.taskStates()) {
                if (h.isIncremental()) {
                    h.incremental().sharedFiles().stream().map(IncrementalStateHandle.StateFile::path).forEach(own::add);
                }
            }
            references += own.size();
            reused += own.stream().filter(seen::contains).count();
            seen.addAll(own);
        }
        System.out.printf("S3 checkpoints, rocksdb incremental: %d checkpoints refer to %d shared files %d times"
                        + " (%d of them to a file an earlier checkpoint uploaded); %d shared files uploaded%n",
                checkpoints.size(), seen.size(), references, reused, sharedFilesWritten.size());
        assertThat(seen).as("shared files of the job's checkpoints").isNotEmpty().allMatch(p -> p.startsWith(sharedDirectory));
        assertThat(sharedFilesWritten).as("shared files uploaded to S3").containsAll(seen)
                .allMatch(p -> p.startsWith(sharedDirectory));
        assertThat(reused).as("references of checkpoints to shared files that an earlier checkpoint uploaded").isPositive();
        assertThat((long) sharedFilesWritten.size()).as("shared files uploaded, fewer than referred to")
                .isLessThan(references);
    }

    @ParameterizedTest(name = "state in {0}")
    @EnumSource(StateBackendType.class)
    void exactlyOnceJobCheckpointsToS3SurvivesTaskFailuresAndAJobManagerFailover(StateBackendType backend)
            throws Exception {
        long records = 80_000;
        failures.release();
        failures = InjectedFailures.at(List.of(8_000L, 20_000L));
        JobId id = cluster.submit(countingJob(records, 20_000, 0, backend));
        assertThat(rawStore.get()).isInstanceOf(S3BlobStore.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> failures.thrown() >= 2);
        LocalCluster.JobManager standby = standbyAfterCheckpoints(id, 3);
        long completedBefore = details(cluster.dispatcher(), id).checkpoints().completed();
        // The checkpoints went to S3 (the store is an S3BlobStore, asserted above). Counted by the storage
        // layer rather than by listing the bucket: S3Proxy's file backend can fail a listing that races
        // with the deletes of subsumed checkpoints, and under load it did so for longer than a test can wait.
        assertThat(cluster.checkpointStorages().forLocation(LOCATION).metadataWrites()).isGreaterThanOrEqualTo(3);
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());

        DispatcherGateway dispatcher = standby.dispatcher();
        JobResult result = dispatcher.requestJobResult(id).get(90, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        assertThat(failures.thrown()).isEqualTo(2);
        assertExactCounts(records);
        JobDetails d = details(dispatcher, id);
        assertThat(d.recovery().metadataLoaded()).as("only the latest checkpoint's metadata, read from S3").isEqualTo(1);
        System.out.printf("S3 failover (%s): %d checkpoints before the failover, %d after%n", backend.backendName(),
                completedBefore, d.checkpoints().completed());
        assertCheckpointKind(id, backend);
    }

    @ParameterizedTest(name = "state in {0}")
    @EnumSource(StateBackendType.class)
    void s3RefusingConnectionsWhileAJobMasterGainsLeadership_statusStaysPromptThenTheJobResumesExactly(
            StateBackendType backend) throws Exception {
        long records = 60_000;
        JobId id = cluster.submit(countingJob(records, 20_000, 0, backend));
        LocalCluster.JobManager standby = standbyAfterCheckpoints(id, 3);
        proxy.refuseConnections();
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        DispatcherGateway dispatcher = standby.dispatcher();

        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JobDetails d = details(dispatcher, id);
            return d.recovery() != null && d.recovery().attempt() >= 3 && d.recovery().lastError() != null;
        });
        long slowest = 0;
        for (int i = 0; i < 1_000; i++) {
            long start = System.nanoTime();
            JobDetails d = dispatcher.requestJobDetails(id).get(1, TimeUnit.SECONDS);
            slowest = Math.max(slowest, System.nanoTime() - start);
            assertThat(d.status()).isEqualTo(JobStatus.INITIALIZING);
            assertThat(d.recovery().lastError()).contains("Connection refused");
        }
        JobDetails d = details(dispatcher, id);
        assertThat(d.recovery().attempt()).isGreaterThanOrEqualTo(3);
        System.out.printf("S3 refused at leadership grant: attempt %d, slowest of 1000 status queries %.2f ms,"
                + " last error: %s%n", d.recovery().attempt(), slowest / 1e6, d.recovery().lastError());

        proxy.heal();
        JobResult result = dispatcher.requestJobResult(id).get(90, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        assertExactCounts(records);
        assertThat(details(dispatcher, id).recovery().metadataLoaded()).isEqualTo(1);
        assertCheckpointKind(id, backend);
    }

    @Test
    void s3RefusingConnectionsWhileAJobMasterGainsLeadership_cancelIsAnsweredPromptly() throws Exception {
        JobId id = cluster.submit(countingJob(1_000_000, 20_000, 0));
        LocalCluster.JobManager standby = standbyAfterCheckpoints(id, 2);
        proxy.refuseConnections();
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        DispatcherGateway dispatcher = standby.dispatcher();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            JobDetails d = details(dispatcher, id);
            return d.recovery() != null && d.recovery().attempt() >= 2;
        });
        assertThat(details(dispatcher, id).status()).isEqualTo(JobStatus.INITIALIZING);

        dispatcher.cancelJob(id).get(5, TimeUnit.SECONDS);
        JobResult result = dispatcher.requestJobResult(id).get(10, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
    }

    // S3 down while the job runs, with default job settings: S3StorageOutageWhileRunningITCase.
}
