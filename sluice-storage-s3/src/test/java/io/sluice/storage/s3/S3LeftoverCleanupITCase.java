package io.sluice.storage.s3;

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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job manager that stopped between a job's result write and its clean-up, with the job's
 * checkpoints on S3 (S3Proxy in this JVM) and embedded HA in a temporary directory: the job ran and
 * checkpointed to {@code s3://bucket/checkpoints}, the cluster stopped, and the job's FINISHED result
 * was then written beside its graph and pointers, as a crash right after the result write leaves
 * them. The next cluster on the same HA directory never runs the job again and removes every object
 * of its checkpoints (counted in the bucket, read directly) and its HA files. The local-disk variant
 * is {@code LeftoverCleanupITCase} in sluice-runtime.
 */
class S3LeftoverCleanupITCase {
    private static final String BUCKET = "bucket";
    private static final String LOCATION = "s3://" + BUCKET + "/checkpoints";

    @TempDir
    Path dir;
    private S3ProxyServer server;
    private final CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();

    @BeforeEach
    void startS3() throws Exception {
        server = S3ProxyServer.start(BUCKET);
    }

    @AfterEach
    void stop() throws Exception {
        sink.release();
        server.close();
    }

    private LocalCluster cluster() {
        return LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .configuration(S3ProxyServer.clientConfiguration(server.endpoint())).build();
    }

    private long objectsOf(JobId job) {
        return server.objectCount(BUCKET, "checkpoints/" + job.value() + "/");
    }

    @Test
    void theNextLeaderDeletesEveryS3ObjectOfAJobWhoseResultWasWrittenBeforeACrash() throws Exception {
        JobId job;
        try (LocalCluster first = cluster()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(50)).setCheckpointDir(LOCATION);
            KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(2_000), 4, InjectedFailures.none(), sink);
            job = first.submit(env.buildJobGraph("s3 leftovers"));
            JobId id = job;
            await().atMost(Duration.ofSeconds(60)).until(() ->
                    first.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3);
        }
        // The crash: the result is durable, nothing after it happened.
        new FileJobResultStore(dir.resolve("ha").resolve("jobresults")).putResult(new JobResult(job, "s3 leftovers",
                JobStatus.FINISHED, System.currentTimeMillis(), null, null, LOCATION, true));
        long left = objectsOf(job);
        assertThat(left).as("checkpoint objects on S3 before the restart").isPositive();
        assertThat(haFilesOf(job)).as("graph, pointers and counter").hasSizeGreaterThanOrEqualTo(3);
        int emitted = sink.count();

        try (LocalCluster second = cluster()) {
            JobId id = job;
            assertThat(second.dispatcher().requestJobResult(id).get(30, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.FINISHED);
            await().atMost(Duration.ofSeconds(60)).until(() -> objectsOf(id) == 0 && haFilesOf(id).isEmpty());
            await().atMost(Duration.ofSeconds(30)).until(() -> !second.dispatcher().requestJobResult(id)
                    .get(5, TimeUnit.SECONDS).mayHaveCheckpoints());
            assertThat(new FileJobResultStore(dir.resolve("ha").resolve("jobresults")).result(id).orElseThrow()
                    .mayHaveCheckpoints()).as("the stored result says nothing is left").isFalse();
        }
        assertThat(objectsOf(job)).as("no object of the ended job's checkpoints (%d before)", left).isZero();
        assertThat(server.objectCount(BUCKET)).as("nothing else in the bucket either").isZero();
        assertThat(sink.count()).as("the job never ran again").isEqualTo(emitted);
        System.out.printf("S3 leftovers: %d checkpoint objects of job %s before the restart, 0 after%n", left, job);
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
