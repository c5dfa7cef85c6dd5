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
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When every retained checkpoint of a job is unreadable at recovery (and starting empty is not
 * allowed), the job is not lost: it waits INITIALIZING with its graph and checkpoints kept and the
 * error and advice in status, and resumes by itself, with exact state, once the files are repaired.
 * Embedded HA on a directory; the second cluster stands for a restarted job manager process.
 */
class UnreadableCheckpointsITCase {
    private static final int KEYS = 8;
    private static final long RECORDS = 40_000;

    @TempDir
    Path dir;

    @Test
    void allCheckpointsCorruptKeepsTheJobWaitingAndItResumesOnceTheyAreRepaired() throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        JobId id;
        try (LocalCluster first = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.resolve("checkpoints").toString());
            KeyedCountingJob.build(env, SequenceSource.bounded(0, RECORDS - 1).withRate(20_000), KEYS,
                    InjectedFailures.none(), sink);
            id = first.submit(env.buildJobGraph("unreadable checkpoints"));
            JobId job = id;
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    first.dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
        }
        // Every retained checkpoint's metadata is damaged while no job manager runs; keep the originals.
        Map<Path, byte[]> originals = new HashMap<>();
        try (Stream<Path> files = Files.walk(dir.resolve("checkpoints").resolve(id.value()))) {
            for (Path p : files.filter(p -> p.getFileName().toString().equals("_metadata")).toList()) {
                originals.put(p, Files.readAllBytes(p));
                Files.write(p, "garbage".getBytes());
            }
        }
        assertThat(originals).isNotEmpty();

        try (LocalCluster second = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            JobId job = id;
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                JobDetails d = second.dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS);
                return d.recovery() != null && d.recovery().phase().contains("no retained checkpoint is readable");
            });
            JobDetails waiting = second.dispatcher().requestJobDetails(job).get(5, TimeUnit.SECONDS);
            assertThat(waiting.status()).isEqualTo(JobStatus.INITIALIZING);
            assertThat(waiting.recovery().phase()).contains("repair the checkpoint files").contains("checkpoints.restore-from");
            assertThat(waiting.recovery().lastError()).contains("None of the").contains("corrupt");
            assertThat(dir.resolve("ha").resolve("jobgraphs").resolve(id.value())).as("graph kept").exists();
            assertThat(dir.resolve("ha").resolve("jobresults").resolve(id.value())).as("no result").doesNotExist();
            assertThat(originals.keySet()).allSatisfy(p -> assertThat(p).exists());

            for (Map.Entry<Path, byte[]> e : originals.entrySet()) {
                Files.write(e.getKey(), e.getValue());
            }
            JobResult result = second.dispatcher().requestJobResult(job).get(90, TimeUnit.SECONDS);
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
            Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, KEYS));
        } finally {
            sink.release();
        }
    }
}
