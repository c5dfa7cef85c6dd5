package io.sluice.it;

import io.sluice.rpc.MainThreads;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.core.serialization.Serializers;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.StateBackendType;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Task-local recovery: with it on, a task failover while checkpoint storage refuses every
 * connection restores from the task executors' local copies and reads nothing from storage; with
 * it off, the same failover cannot restore until storage is back. The state is kept in state files
 * (inline state off): small state inline in the metadata needs no local copy, see
 * {@link InlineStateRecoveryITCase}. The same with RocksDB's incremental checkpoints: the restored
 * tasks read none of the checkpoint's files from storage (hard links and copies of the task
 * executors' local files instead).
 */
class TaskLocalRecoveryITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 150_000;
    /** Records read at full speed before the source slows to a trickle until {@link #gate} opens. */
    private static final int FILL = 15_000;

    @TempDir
    Path dir;
    private final AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;
    private InjectedFailures failures;
    private final String gate = "task-local recovery " + java.util.UUID.randomUUID();

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults))
                .configuration(new Configuration().setString("state.backend.rocksdb.local-dir",
                        dir.resolve("rocksdb").toString()))
                .build();
        sink = CollectingSink.create();
        failures = InjectedFailures.onceArmed();
        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, false);
    }

    @AfterEach
    void stop() {
        if (faults.get() != null) {
            faults.get().heal();
        }
        cluster.close();
        sink.release();
        failures.release();
        IncrementalCheckpointRecoveryITCase.OPEN.remove(gate);
    }

    private JobId submit(boolean localRecovery) throws Exception {
        return submit(localRecovery, StateBackendType.HEAP);
    }

    private JobId submit(boolean localRecovery, StateBackendType backend) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setStateBackend(backend).setIncrementalCheckpoints(backend == StateBackendType.ROCKSDB)
                .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.resolve("cp").toString())
                .setTolerableCheckpointFailures(10_000).setLocalRecovery(localRecovery)
                // The state is small enough to be inlined; keep it in state files, the subject here.
                .setInlineStateThreshold(0)
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(1_000, Duration.ofMillis(20)));
        // Up to FILL records, then one a millisecond per subtask until the test opens the gate: the input cannot run
        // out before the failure is armed, however slow the machine (CI's loaded machine once took longer than the
        // whole input at 30,000 records/s to complete three checkpoints, and the job finished without a failover).
        env.fromSource(new IncrementalCheckpointRecoveryITCase.HeldSource(gate, RECORDS, FILL / 2,
                        Duration.ofMillis(1)), "numbers")
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new KeyedCountingJob.CountPerKey(KEYS, failures)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        return cluster.submit(env.buildJobGraph("local recovery " + localRecovery + " " + backend));
    }

    /**
     * Waits for a few checkpoints, then makes storage refuse connections, then arms the failure (at the
     * next record) and lets the rest of the input through. A failure at a fixed record (45,000 of 60,000) came
     * before storage went down on CI's loaded machine.
     */
    private void refuseStorageBeforeTheFailure(JobId id) {
        await().atMost(Duration.ofSeconds(30)).until(() ->
                cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3
                        && sink.count() >= FILL);
        assertThat(failures.thrown()).as("the failure must come after storage went down").isZero();
        faults.get().refuseConnections();
        failures.arm();
        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, true);
    }

    private CheckpointStorage storage() {
        return cluster.checkpointStorages().forLocation(dir.resolve("cp").toString());
    }

    /**
     * The task executor hears of completed checkpoints and of ended tasks on its main thread; the local copies they
     * make obsolete are deleted on the I/O executor. They were deleted on the main thread until 2026-12-07, which
     * the guard counted (and, on in tests, threw, so the completion never reached the operators) and which held the
     * main thread for 65-186 ms at 4 GB, delaying the report of a task's failure by as much.
     */
    private static void assertNoLocalStateIoOnMainThreads(long violationsBefore) {
        assertThat(MainThreads.ioViolations() - violationsBefore).as("I/O on a component's main thread").isZero();
    }

    @Test
    void withLocalRecoveryAFailoverWhileStorageRefusesConnectionsReadsNothingAndSucceeds() throws Exception {
        long violations = MainThreads.ioViolations();
        JobId id = submit(true);
        refuseStorageBeforeTheFailure(id);
        long stateReads = storage().stateReads();
        long metadataReads = storage().metadataReads();

        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
        assertThat(d.restarts()).isEqualTo(1);
        assertThat(d.checkpoints().failed()).as("checkpoints while storage refused connections").isPositive();
        assertThat(storage().stateReads()).as("state reads during the failover").isEqualTo(stateReads);
        assertThat(storage().metadataReads()).as("metadata reads during the failover").isEqualTo(metadataReads);
        long hits = cluster.taskExecutors().stream().mapToLong(te -> te.localState().hits()).sum();
        assertThat(hits).as("keyed subtasks restored from local copies").isEqualTo(2);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        assertNoLocalStateIoOnMainThreads(violations);
    }

    @Test
    void withLocalRecoveryARocksDbIncrementalFailoverWhileStorageRefusesConnectionsReadsNoFileAndSucceeds()
            throws Exception {
        long violations = MainThreads.ioViolations();
        JobId id = submit(true, StateBackendType.ROCKSDB);
        refuseStorageBeforeTheFailure(id);
        long stateReads = storage().stateReads();
        long metadataReads = storage().metadataReads();
        long misses = cluster.taskExecutors().stream().mapToLong(te -> te.localState().misses()).sum();

        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
        assertThat(d.restarts()).isEqualTo(1);
        assertThat(d.checkpoints().failed()).as("checkpoints while storage refused connections").isPositive();
        assertThat(storage().stateReads()).as("checkpoint files read from storage during the failover")
                .isEqualTo(stateReads);
        assertThat(storage().metadataReads()).as("metadata reads during the failover").isEqualTo(metadataReads);
        // Per file: both keyed subtasks' table files and their manifest, current and options files.
        assertThat(cluster.taskExecutors().stream().mapToLong(te -> te.localState().hits()).sum())
                .as("RocksDB files restored from local files").isGreaterThanOrEqualTo(2 * 4);
        assertThat(cluster.taskExecutors().stream().mapToLong(te -> te.localState().misses()).sum())
                .as("RocksDB files without a local file").isEqualTo(misses);
        assertThat(cluster.taskExecutors()).as("local files beside RocksDB's, for hard links")
                .allMatch(te -> te.localState().directory().startsWith(dir.resolve("rocksdb").resolve("local-recovery")));
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        assertNoLocalStateIoOnMainThreads(violations);
    }

    @Test
    void withoutLocalRecoveryTheSameFailoverWaitsForStorage() throws Exception {
        JobId id = submit(false);
        refuseStorageBeforeTheFailure(id);
        // Restores read the state files from storage, which refuses: the job keeps restarting.
        await().atMost(Duration.ofSeconds(30)).until(() ->
                cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).restarts() >= 3);
        assertThat(cluster.taskExecutors().stream().mapToLong(te -> te.localState().hits()).sum()).isZero();
        faults.get().heal();
        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
    }

}
