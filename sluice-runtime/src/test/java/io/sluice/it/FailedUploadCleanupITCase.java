package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.tuple.Tuple2;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.storage.BlobContent;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ForwardingBlobStore;
import io.sluice.storage.StorageException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upload of a RocksDB incremental checkpoint that storage refuses part-way, after the subtask uploaded new table
 * files for it: those files are deleted by the subtask, the checkpoint is declined, and the job runs on to exact
 * results. Nobody else could delete them: the job master aborts the checkpoint knowing only the acknowledgements it
 * received, the files have names no other upload uses, in the job's {@code shared/} directory, and the backend
 * refers only to files of confirmed checkpoints. Before, they stayed until the job's checkpoints were deleted (with
 * checkpoints retained, for ever).
 */
class FailedUploadCleanupITCase {
    private static final int KEYS = 2_000;

    @TempDir
    Path dir;

    private LocalCluster cluster;
    private CollectingSink<Tuple2<Long, Long>> sink;
    private String gate;

    /**
     * Refuses, once armed, the first upload of a checkpoint's {@code CURRENT} file (RocksDB's files go up sorted by
     * name, so after its table files) for which the same subtask uploaded new table files before, and remembers those.
     */
    private static final class RefuseOnce {
        volatile boolean armed;
        private final List<String> sharedSinceCurrent = new ArrayList<>();
        private List<String> orphaned;

        synchronized List<String> orphaned() {
            return orphaned;
        }

        BlobStore decorate(BlobStore store) {
            return new ForwardingBlobStore(store) {
                @Override
                public void put(String path, BlobContent content) {
                    if (path.contains("/chk-") && path.endsWith("-CURRENT")) {
                        synchronized (RefuseOnce.this) {
                            if (armed && orphaned == null && !sharedSinceCurrent.isEmpty()) {
                                orphaned = List.copyOf(sharedSinceCurrent);
                                throw new StorageException("Checkpoint storage refused " + path
                                        + " (injected by the test, after " + orphaned.size() + " new table files)");
                            }
                            sharedSinceCurrent.clear();
                        }
                    }
                    super.put(path, content);
                    if (path.contains("/shared/")) {
                        synchronized (RefuseOnce.this) {
                            sharedSinceCurrent.add(path);
                        }
                    }
                }
            };
        }
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
        if (sink != null) {
            sink.release();
        }
        if (gate != null) {
            IncrementalCheckpointRecoveryITCase.OPEN.remove(gate);
        }
    }

    @Test
    void theTableFilesOfAnUploadRefusedPartWayAreDeletedAndTheJobRunsOnToExactResults() throws Exception {
        RefuseOnce refuse = new RefuseOnce();
        Configuration configuration = new Configuration()
                .setString("state.backend.rocksdb.compaction.target-file-size", "16 kb")
                .setString("state.backend.rocksdb.compaction.level0-files", "4")
                .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString());
        cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).configuration(configuration)
                .blobStoreDecorator(refuse::decorate).build();
        sink = CollectingSink.create();
        long records = 20_000;
        gate = "failed upload " + java.util.UUID.randomUUID();
        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, false);
        Path checkpoints = dir.resolve("checkpoints");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .setStateBackend(StateBackendType.ROCKSDB).setIncrementalCheckpoints(true)
                .enableCheckpointing(Duration.ofMillis(50)).setInlineStateThreshold(0)
                .setCheckpointDir(checkpoints.toString());
        env.fromSource(new IncrementalCheckpointRecoveryITCase.HeldSource(gate, records, KEYS, Duration.ofMillis(2)),
                        "numbers")
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new IncrementalCheckpointRecoveryITCase.CountWithPadding(KEYS)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        JobId id = cluster.submit(env.buildJobGraph("failed upload"));

        await().atMost(Duration.ofSeconds(60)).until(() -> sink.results().size() >= KEYS);
        refuse.armed = true;
        await().atMost(Duration.ofSeconds(60)).until(() -> refuse.orphaned() != null);
        List<String> orphaned = refuse.orphaned();
        long completedThen = details(id).checkpoints().completed();
        await().atMost(Duration.ofSeconds(60)).until(() -> details(id).checkpoints().completed() >= completedThen + 2);

        JobDetails details = details(id);
        System.out.printf("refused after %d new table files; %d checkpoints completed, %d failed%n", orphaned.size(),
                details.checkpoints().completed(), details.checkpoints().failed());
        assertThat(details.status()).as("a refused upload fails a checkpoint, not the job").isEqualTo(JobStatus.RUNNING);
        assertThat(details.checkpoints().failed()).isPositive();
        assertThat(orphaned).as("the table files uploaded for the refused checkpoint").isNotEmpty();
        // Deleted on the upload's I/O thread right after its decline: long done, but not ordered with the checkpoints.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(orphaned)
                .allSatisfy(path -> assertThat(checkpoints.resolve(path)).as("deleted by the subtask").doesNotExist()));

        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, true);
        JobResult result = cluster.dispatcher().requestJobResult(id).get(120, TimeUnit.SECONDS);
        assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
    }

    private JobDetails details(JobId id) throws Exception {
        return cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }
}
