package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job's checkpoints outlive it: a job that FAILED (a failure its restart strategy does not
 * retry) keeps its retained checkpoints and their HA pointers, and a new job started from
 * {@code latest:<jobId>} or from a checkpoint directory continues from there with exact keyed
 * state. Starting other jobs from them never deletes them. Embedded HA on a directory, as a user
 * runs it.
 */
class RetainedCheckpointsITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 30_000;

    @TempDir
    Path dir;

    @Test
    void aFailedJobKeepsItsCheckpointsAndNewJobsContinueFromThemWithExactState() throws Exception {
        Path checkpoints = dir.resolve("checkpoints");
        Path ha = dir.resolve("ha");
        InjectedFailures permanent = InjectedFailures.at(List.of(15_000L));
        CollectingSink<Tuple2<Long, Long>> failedSink = CollectingSink.create();
        CollectingSink<Tuple2<Long, Long>> fromLatest = CollectingSink.create();
        CollectingSink<Tuple2<Long, Long>> fromPath = CollectingSink.create();
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(ha).build()) {
            JobId failed = cluster.submit(job(20_000, permanent, new RestartStrategyConfig.NoRestart(), failedSink));
            JobResult result = cluster.dispatcher().requestJobResult(failed).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FAILED);
            assertThat(result.failureMessage()).contains("Injected failure at record 15000");

            List<Long> pointers = ids(ha.resolve("checkpoints").resolve(failed.value()));
            assertThat(pointers).as("HA pointers of the FAILED job are kept").isNotEmpty();
            long latest = pointers.get(pointers.size() - 1);
            Path latestDir = checkpoints.resolve(failed.value()).resolve("chk-" + latest);
            assertThat(latestDir.resolve("_metadata")).as("its checkpoint files are kept").exists();
            assertThat(Files.exists(ha.resolve("jobgraphs").resolve(failed.value()))).as("its graph is gone").isFalse();

            JobId b = cluster.submit(job(0, InjectedFailures.none(), null, fromLatest), "latest:" + failed);
            assertFinishedWithExactCounts(cluster, b, fromLatest, latest, failed);

            JobId c = cluster.submit(job(0, InjectedFailures.none(), null, fromPath), latestDir.toString());
            assertFinishedWithExactCounts(cluster, c, fromPath, latest, failed);

            assertThat(latestDir.resolve("_metadata")).as("restoring never deletes the other job's checkpoint").exists();
            assertThat(ids(ha.resolve("checkpoints").resolve(failed.value()))).isEqualTo(pointers);
            assertThat(ids(ha.resolve("checkpoints").resolve(b.value()))).as("a FINISHED job cleans up").isEmpty();
        } finally {
            permanent.release();
            failedSink.release();
            fromLatest.release();
            fromPath.release();
        }
    }

    private static void assertFinishedWithExactCounts(LocalCluster cluster, JobId id, CollectingSink<Tuple2<Long, Long>> sink,
                                                      long checkpoint, JobId from) throws Exception {
        JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
        assertThat(result.status()).as(String.valueOf(result.failureMessage())).isEqualTo(JobStatus.FINISHED);
        Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
        assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        assertThat((long) sink.count()).as("it continued from the checkpoint, not from the start").isLessThan(RECORDS);
        JobDetails details = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
        assertThat(details.recovery().events()).anySatisfy(e -> assertThat(e)
                .contains("Starting from checkpoint " + checkpoint + " of job " + from));
    }

    private JobGraph job(double rate, InjectedFailures failures, RestartStrategyConfig restart,
                         CollectingSink<Tuple2<Long, Long>> sink) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.resolve("checkpoints").toString());
        if (restart != null) {
            env.setRestartStrategy(restart);
        }
        SequenceSource source = SequenceSource.bounded(0, RECORDS - 1);
        KeyedCountingJob.build(env, rate > 0 ? source.withRate(rate) : source, KEYS, failures, sink);
        return env.buildJobGraph("retained " + rate);
    }

    private static List<Long> ids(Path pointerDir) throws IOException {
        if (!Files.isDirectory(pointerDir)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(pointerDir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.matches("\\d+")).map(Long::parseLong)
                    .sorted().toList();
        }
    }
}
