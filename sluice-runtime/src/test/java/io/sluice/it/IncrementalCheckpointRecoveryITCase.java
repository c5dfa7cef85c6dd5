package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.checkpoint.CheckpointMetadataSerializer;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.protocol.JobDetails;
import io.sluice.config.StateBackendType;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A job-manager failover of a job with RocksDB's incremental checkpoints, N of them retained, sharing
 * table files: the new leader reads exactly one metadata file (the latest checkpoint's), lists nothing
 * in checkpoint storage, and reads no file of any other checkpoint (its shared-state registry comes from
 * that metadata alone); the restored tasks read exactly the latest checkpoint's files, each once. Then
 * the job finishes with exact counts. Every read of checkpoint storage is recorded by a decorator.
 */
class IncrementalCheckpointRecoveryITCase {
    private static final int KEYS = 2_000;

    @TempDir
    Path dir;
    private final Recorder recorder = new Recorder();
    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;

    /** Records reads and listings of checkpoint storage while recording. */
    private static final class Recorder {
        volatile boolean on;
        final List<String> gets = new ArrayList<>();
        final Map<String, byte[]> metadata = new java.util.HashMap<>();
        final AtomicLong lists = new AtomicLong();

        BlobStore decorate(BlobStore store) {
            return new ForwardingBlobStore(store) {
                @Override
                public byte[] get(String path) {
                    byte[] data = super.get(path);
                    if (on) {
                        synchronized (Recorder.this) {
                            gets.add(path);
                            if (path.endsWith("/_metadata")) {
                                metadata.put(path, data);
                            }
                        }
                    }
                    return data;
                }

                @Override
                public List<String> list(String prefix) {
                    if (on) {
                        lists.incrementAndGet();
                    }
                    return super.list(prefix);
                }
            };
        }
    }

    @BeforeEach
    void start() {
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).blobStoreDecorator(recorder::decorate).build();
        sink = CollectingSink.create();
    }

    @AfterEach
    void stop() {
        cluster.close();
        sink.release();
    }

    @ParameterizedTest(name = "{0} retained")
    @ValueSource(ints = {1, 10})
    void aNewLeaderReadsOneMetadataFileAndOnlyTheLatestCheckpointsFiles(int retained) throws Exception {
        long records = 400_000;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .setStateBackend(StateBackendType.ROCKSDB).setIncrementalCheckpoints(true)
                .setRetainedCheckpoints(retained).enableCheckpointing(Duration.ofMillis(30)).setInlineStateThreshold(0)
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
        KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(40_000), KEYS,
                InjectedFailures.none(), sink);
        JobId id = cluster.submit(env.buildJobGraph("incremental failover, " + retained + " retained"));

        DispatcherGateway first = cluster.dispatcher();
        await().atMost(Duration.ofSeconds(60)).until(() -> details(first, id).checkpoints().completed() >= retained + 3);
        LocalCluster.JobManager standby = cluster.startJobManager();
        await().atMost(Duration.ofSeconds(10)).until(() ->
                cluster.haServices().dispatcherLeaderRetrieval().currentLeader().isPresent());
        assertThat(standby.dispatcher().isLeader()).isFalse();
        long metadataReads = storage().metadataReads();

        recorder.on = true;
        cluster.stopJobManager(cluster.jobManagers().get(0));
        await().atMost(Duration.ofSeconds(10)).until(() -> standby.dispatcher().isLeader());
        // Recovered and restored once the new leader's first checkpoint completed (the tasks read before they run).
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JobDetails d = details(standby.dispatcher(), id);
            return d.status() == JobStatus.FINISHED || d.checkpoints().completed() >= 1;
        });
        recorder.on = false;

        List<String> gets;
        synchronized (recorder) {
            gets = List.copyOf(recorder.gets);
        }
        List<String> metadataGets = gets.stream().filter(p -> p.endsWith("/_metadata")).toList();
        assertThat(metadataGets).as("metadata read by the new leader").hasSize(1);
        assertThat(storage().metadataReads() - metadataReads).as("metadata reads counted by the storage").isEqualTo(1);
        assertThat(recorder.lists.get()).as("listings of checkpoint storage during recovery").isZero();

        String path = metadataGets.get(0);
        CompletedCheckpoint latest = new CheckpointMetadataSerializer().deserialize(recorder.metadata.get(path), path);
        Set<String> ownFiles = new TreeSet<>();
        for (TaskStateHandle h : latest.taskStates()) {
            if (h.isIncremental()) {
                h.incremental().sharedFiles().forEach(f -> ownFiles.add(f.path()));
                h.incremental().privateFiles().forEach(f -> ownFiles.add(f.path()));
            }
        }
        Set<Long> referring = new HashSet<>();
        latest.sharedFileReferences().values().forEach(referring::addAll);
        long shared = latest.sharedFileReferences().values().stream().filter(ids -> ids.size() > 1).count();
        System.out.printf("%d retained: the latest checkpoint %d has %d files; the registry in its metadata names %d"
                        + " shared files of checkpoints %s, %d of them shared by several%n", retained,
                latest.checkpointId(), ownFiles.size(), latest.sharedFileReferences().size(), new TreeSet<>(referring),
                shared);
        assertThat(ownFiles).as("the latest checkpoint is incremental").isNotEmpty();
        if (retained > 1) {
            assertThat(referring).as("the registry spans the retained checkpoints").hasSizeGreaterThan(1);
            assertThat(shared).as("files shared by several retained checkpoints").isPositive();
        }

        List<String> fileGets = gets.stream().filter(p -> !p.endsWith("/_metadata")).toList();
        assertThat(fileGets).as("files read during recovery and restore: only the latest checkpoint's")
                .allMatch(ownFiles::contains);
        assertThat(fileGets).as("each read once, all of them").doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(ownFiles);

        JobResult result = standby.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    private CheckpointStorage storage() {
        return cluster.checkpointStorages().forLocation(dir.resolve("checkpoints").toString());
    }

    private JobDetails details(DispatcherGateway dispatcher, JobId id) throws Exception {
        return dispatcher.requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }
}
