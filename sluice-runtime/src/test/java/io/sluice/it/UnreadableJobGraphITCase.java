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
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stored job whose graph cannot be read back after a restart (a corrupt file; the same path as a
 * jar that fails its digest check) is neither lost nor hidden: it stays INITIALIZING with the
 * attempt and the error in its status while the job manager retries, other jobs run meanwhile, and
 * a cancel ends it CANCELED (recorded, its graph removed, its checkpoints kept), so it is never
 * retried again. Before, its status said only "reading the job graph" and a cancel was refused
 * with "retry the cancel in a moment", forever.
 */
class UnreadableJobGraphITCase {
    private static final int KEYS = 4;

    @TempDir
    Path dir;

    @Test
    void aCorruptStoredGraphShowsItsErrorAndCanBeCancelled() throws Exception {
        Path ha = dir.resolve("ha");
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        CollectingSink<Tuple2<Long, Long>> other = CollectingSink.create();
        JobId broken;
        try (LocalCluster first = LocalCluster.builder().haDirectory(ha).build()) {
            broken = first.submit(job(1_000_000, 5_000, sink, "broken"));
            JobId id = broken;
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 1);
        }
        Path graphFile = ha.resolve("jobgraphs").resolve(broken.value());
        assertThat(graphFile).exists();
        Files.write(graphFile, new byte[] {1, 2, 3, 4});

        try (LocalCluster second = LocalCluster.builder().haDirectory(ha).build()) {
            JobId id = broken;
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    second.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).recovery().attempt() >= 2);
            JobDetails waiting = second.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
            assertThat(waiting.status()).isEqualTo(JobStatus.INITIALIZING);
            assertThat(waiting.recovery().lastError()).contains("is corrupt");
            assertThat(waiting.recovery().phase()).contains("cancel the job to stop");

            JobId ok = second.submit(job(2_000, 0, other, "other"));
            assertThat(second.dispatcher().requestJobResult(ok).get(60, TimeUnit.SECONDS).status())
                    .as("the cluster keeps serving other jobs").isEqualTo(JobStatus.FINISHED);

            second.dispatcher().cancelJob(id).get(5, TimeUnit.SECONDS);
            JobResult result = second.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.CANCELED);
            assertThat(graphFile).as("the unreadable graph is removed with the cancel").doesNotExist();
            assertThat(ha.resolve("checkpoints").resolve(id.value())).as("its checkpoints are kept").isNotEmptyDirectory();
        }
        try (LocalCluster third = LocalCluster.builder().haDirectory(ha).build()) {
            JobId id = broken;
            await().atMost(Duration.ofSeconds(10)).until(() -> third.dispatcher().listJobs().get(5, TimeUnit.SECONDS)
                    .stream().anyMatch(j -> j.jobId().equals(id) && j.status() == JobStatus.CANCELED));
        } finally {
            sink.release();
            other.release();
        }
    }

    private io.sluice.graph.JobGraph job(long records, double rate, CollectingSink<Tuple2<Long, Long>> sink,
                                         String name) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofMillis(50)).setCheckpointDir(dir.resolve("checkpoints").toString());
        SequenceSource source = SequenceSource.bounded(0, records - 1);
        KeyedCountingJob.build(env, rate > 0 ? source.withRate(rate) : source, KEYS, InjectedFailures.none(), sink);
        return env.buildJobGraph(name);
    }
}
