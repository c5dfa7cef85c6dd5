package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job that FINISHES while checkpoint storage refuses connections ends at once (its result is in
 * the HA store, its pointers are removed), and its checkpoint files, which storage would not let
 * it delete then, are deleted by itself once storage answers again: nothing is left by hand.
 * Before this, the deletion was tried once and the files stayed forever.
 */
class FinishedDuringStorageOutageITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 40_000;

    @TempDir
    Path dir;

    @Test
    void checkpointFilesLeftByAnOutageAreDeletedOnceStorageIsBack() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        AtomicReference<FaultInjectingBlobStore> storage = new AtomicReference<>();
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(storage)).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(checkpoints.toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(20_000), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = cluster.submit(env.buildJobGraph("finishes during an outage"));
            await().atMost(Duration.ofSeconds(60)).until(() -> completedCheckpoints(cluster, id) > 0);

            storage.get().refuseConnections();
            JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
            assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1))
                    .isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
            Path jobDir = checkpoints.resolve(id.value());
            assertThat(jobDir).as("storage refused the deletion, so the files are still there").exists();
            assertThat(dir.resolve("ha").resolve("checkpoints").resolve(id.value()))
                    .as("the pointers went at once").satisfiesAnyOf(
                            p -> assertThat(p).doesNotExist(),
                            p -> assertThat(p).isEmptyDirectory());

            storage.get().heal();
            await().atMost(Duration.ofSeconds(30)).until(() -> !Files.exists(jobDir));
        } finally {
            sink.release();
        }
    }

    private static long completedCheckpoints(LocalCluster cluster, JobId id) throws Exception {
        return cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed();
    }
}
