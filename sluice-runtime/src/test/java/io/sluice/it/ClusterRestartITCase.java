package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.JobSummary;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A cluster restarted on the same HA directory (as a new process would be) resumes its unfinished
 * jobs from their latest checkpoints and never runs a finished job again.
 */
class ClusterRestartITCase {
    private static final int KEYS = 8;

    @TempDir
    Path dir;

    @Test
    void aRestartedClusterResumesUnfinishedJobsAndNeverRerunsFinishedOnes() throws Exception {
        CollectingSink<Tuple2<Long, Long>> slowSink = CollectingSink.create();
        CollectingSink<Tuple2<Long, Long>> quickSink = CollectingSink.create();
        long slowRecords = 40_000;
        JobId slow;
        JobId quick;
        try (LocalCluster first = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            quick = first.submit(job(1_000, 0, quickSink));
            assertThat(first.dispatcher().requestJobResult(quick).get(60, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.FINISHED);
            slow = first.submit(job(slowRecords, 20_000, slowSink));
            JobId id = slow;
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
        }
        long emittedBeforeRestart = slowSink.count();
        assertThat(emittedBeforeRestart).isLessThan(slowRecords);
        int quickResults = quickSink.count();

        try (LocalCluster second = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            JobResult result = second.dispatcher().requestJobResult(slow).get(60, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
            Map<Long, Long> last = CollectingSink.lastValuePerKey(slowSink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(slowRecords, KEYS));
            // It resumed from a checkpoint rather than from the beginning.
            assertThat(slowSink.count() - emittedBeforeRestart).isLessThan(slowRecords);
            JobDetails details = second.dispatcher().requestJobDetails(slow).get(5, TimeUnit.SECONDS);
            assertThat(details.recovery().metadataLoaded()).isEqualTo(1);

            List<JobSummary> jobs = second.dispatcher().listJobs().get(5, TimeUnit.SECONDS);
            assertThat(jobs).anySatisfy(j -> {
                assertThat(j.jobId()).isEqualTo(quick);
                assertThat(j.status()).isEqualTo(JobStatus.FINISHED);
            });
            assertThat(second.dispatcher().requestJobResult(quick).get(5, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.FINISHED);
        }
        try (LocalCluster third = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> third.dispatcher().listJobs().get(5, TimeUnit.SECONDS).size() == 2);
            assertThat(third.dispatcher().listJobs().get(5, TimeUnit.SECONDS))
                    .allSatisfy(j -> assertThat(j.status()).isEqualTo(JobStatus.FINISHED));
        }
        assertThat(quickSink.count()).as("the finished job never ran again").isEqualTo(quickResults);
        slowSink.release();
        quickSink.release();
    }

    private io.sluice.graph.JobGraph job(long records, double rate, CollectingSink<Tuple2<Long, Long>> sink) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.resolve("checkpoints").toString());
        SequenceSource source = SequenceSource.bounded(0, records - 1);
        KeyedCountingJob.build(env, rate > 0 ? source.withRate(rate) : source, KEYS, InjectedFailures.none(), sink);
        return env.buildJobGraph("restart " + records);
    }
}
