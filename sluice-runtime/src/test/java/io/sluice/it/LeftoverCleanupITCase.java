package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.tuple.Tuple2;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.ha.embedded.FileJobResultStore;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job manager that stopped between a job's result write and its clean-up, on a real
 * {@link LocalCluster} with embedded HA: the job ran and checkpointed, the cluster stopped, and the
 * job's FINISHED result is then in the HA directory beside its graph, pointers, id counter and
 * checkpoint files, exactly as a crash right after the result write leaves them. The next cluster on
 * the same directory never runs the job again and removes all of it; the files are counted.
 */
class LeftoverCleanupITCase {
    @TempDir
    Path dir;

    @Test
    void theNextLeaderFinishesTheCleanUpOfAJobWhoseResultWasWrittenBeforeACrash() throws Exception {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        Path checkpoints = dir.resolve("checkpoints");
        JobId job;
        try (LocalCluster first = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(50)).setCheckpointDir(checkpoints.toString());
            KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(2_000), 4, InjectedFailures.none(), sink);
            job = first.submit(env.buildJobGraph("leftovers"));
            JobId id = job;
            await().atMost(Duration.ofSeconds(60)).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
        }
        // The crash: the result is durable, nothing after it happened.
        new FileJobResultStore(dir.resolve("ha").resolve("jobresults")).putResult(new JobResult(job, "leftovers",
                JobStatus.FINISHED, System.currentTimeMillis(), null, null, checkpoints.toString(), true));
        assertThat(filesUnder(checkpoints.resolve(job.value()))).isNotEmpty();
        assertThat(haFilesOf(job)).as("graph, pointers and counter").hasSizeGreaterThanOrEqualTo(3);
        int emitted = sink.count();

        try (LocalCluster second = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            JobId id = job;
            assertThat(second.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.FINISHED);
            await().atMost(Duration.ofSeconds(30)).until(() -> filesUnder(checkpoints.resolve(id.value())).isEmpty()
                    && haFilesOf(id).isEmpty());
            await().atMost(Duration.ofSeconds(30)).until(() -> !second.dispatcher().requestJobResult(id)
                    .get(5, TimeUnit.SECONDS).mayHaveCheckpoints());
            assertThat(new FileJobResultStore(dir.resolve("ha").resolve("jobresults")).result(id).orElseThrow()
                    .mayHaveCheckpoints()).as("the stored result says nothing is left").isFalse();
        }
        assertThat(sink.count()).as("the job never ran again").isEqualTo(emitted);
        sink.release();
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    /** The HA directory's files of the job besides its result. */
    private List<Path> haFilesOf(JobId job) throws IOException {
        return filesUnder(dir.resolve("ha")).stream().filter(p -> p.toString().contains(job.value()))
                .filter(p -> !p.getParent().getFileName().toString().equals("jobresults")).toList();
    }
}
