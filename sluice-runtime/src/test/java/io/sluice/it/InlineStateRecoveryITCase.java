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
 * Small keyed state inlined into the checkpoint metadata ({@code checkpoints.inline-state-threshold},
 * task-local recovery off): a task failover restores from the metadata held in the job manager's
 * memory and reads neither state files nor metadata, even while checkpoint storage refuses every
 * connection. State above the threshold keeps going to state files, which a failover reads.
 */
class InlineStateRecoveryITCase {
    private static final long RECORDS = 150_000; // 5 s at the source's rate: the job still runs after the awaits

    @TempDir
    Path dir;
    private final AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;
    private InjectedFailures failures;

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults)).build();
        sink = CollectingSink.create();
        failures = InjectedFailures.onceArmed(); // armed once the checkpoints are in (a fixed record came too early at load 20-30)
    }

    @AfterEach
    void stop() {
        if (faults.get() != null) {
            faults.get().heal();
        }
        cluster.close();
        sink.release();
        failures.release();
    }

    private JobId submit(int keys) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.resolve("cp").toString())
                .setTolerableCheckpointFailures(10_000).setLocalRecovery(false)
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(1_000, Duration.ofMillis(20)));
        assertThat(env.jobConfig().inlineStateThreshold()).as("the default threshold").isEqualTo(20 * 1024);
        KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(30_000), keys, failures, sink);
        return cluster.submit(env.buildJobGraph("inline state, " + keys + " keys"));
    }

    /** Waits until a few checkpoints completed, with the failure not yet armed. */
    private void awaitCheckpointsBeforeTheFailure(JobId id) {
        await().atMost(Duration.ofSeconds(30)).until(() ->
                cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3
                        && sink.count() >= 15_000);
        assertThat(failures.thrown()).as("the failure must come after the checkpoints").isZero();
    }

    private CheckpointStorage storage() {
        return cluster.checkpointStorages().forLocation(dir.resolve("cp").toString());
    }

    @Test
    void aFailoverWithSmallStateReadsNoStateFileAndNoMetadataEvenWhileStorageRefusesConnections() throws Exception {
        int keys = 8;
        JobId id = submit(keys);
        awaitCheckpointsBeforeTheFailure(id);
        faults.get().refuseConnections();
        failures.arm();
        long stateReads = storage().stateReads();
        long metadataReads = storage().metadataReads();

        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);

        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
        assertThat(d.restarts()).isEqualTo(1);
        assertThat(d.checkpoints().failed()).as("checkpoints while storage refused connections").isPositive();
        assertThat(storage().stateReads()).as("state file reads during the failover").isEqualTo(stateReads);
        assertThat(storage().metadataReads()).as("metadata reads during the failover").isEqualTo(metadataReads);
        assertThat(storage().stateWrites()).as("no state file was ever written: all state was inline").isZero();
        assertThat(cluster.taskExecutors().stream().mapToLong(te -> te.localState().hits() + te.localState().misses())
                .sum()).as("task-local recovery is off").isZero();
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).as("exactly-once state").isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, keys));
    }

    @Test
    void stateAboveTheThresholdStaysInStateFilesWhichTheFailoverReads() throws Exception {
        int keys = 8_192; // 4,096 counters per subtask: well above 20 KiB serialized
        JobId id = submit(keys);
        awaitCheckpointsBeforeTheFailure(id);
        failures.arm();
        long stateReads = storage().stateReads();
        long metadataReads = storage().metadataReads();

        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);

        assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
        assertThat(cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).restarts()).isEqualTo(1);
        assertThat(storage().stateReads() - stateReads).as("one state file per keyed subtask").isEqualTo(2);
        assertThat(storage().metadataReads()).as("metadata still comes from memory").isEqualTo(metadataReads);
        assertThat(storage().stateWrites()).isPositive();
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).as("exactly-once state").isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, keys));
    }
}
