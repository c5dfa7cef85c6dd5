package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.protocol.JobSubmissionException;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.api.errors.InvalidJobException;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Invalid jobs are rejected with a message naming the problem, and a job already running is not
 * disturbed by them.
 */
class JobSubmissionITCase {
    @TempDir
    static Path dir;
    private static LocalCluster cluster;
    private static JobId running;
    private static CollectingSink<Tuple2<Long, Long>> runningSink;

    @BeforeAll
    static void startClusterWithARunningJob() throws Exception {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build();
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofMillis(50)).setCheckpointDir(dir.resolve("running").toString());
        runningSink = CollectingSink.create();
        KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(2_000), 4, InjectedFailures.none(), runningSink);
        running = cluster.submit(env.buildJobGraph("long running"));
        await().atMost(Duration.ofSeconds(30)).until(() -> status(running) == JobStatus.RUNNING);
    }

    @AfterAll
    static void checkTheRunningJobWasNotDisturbed() throws Exception {
        try {
            long before = runningSink.count();
            await().atMost(Duration.ofSeconds(30)).until(() -> runningSink.count() > before);
            JobDetails d = cluster.dispatcher().requestJobDetails(running).get(10, TimeUnit.SECONDS);
            assertThat(d.status()).isEqualTo(JobStatus.RUNNING);
            assertThat(d.restarts()).isZero();
            cluster.dispatcher().cancelJob(running).get(10, TimeUnit.SECONDS);
            assertThat(cluster.dispatcher().requestJobResult(running).get(30, TimeUnit.SECONDS).status())
                    .isEqualTo(JobStatus.CANCELED);
        } finally {
            runningSink.release();
            cluster.close();
        }
    }

    private static JobStatus status(JobId id) throws Exception {
        return cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS).status();
    }

    private static StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.create().setParallelism(2).setCheckpointDir(dir.resolve("cp").toString());
    }

    @Test
    void aJobWithoutSinkIsRejected() {
        StreamExecutionEnvironment env = env();
        env.fromSequence(0, 10).map(v -> v + 1);
        assertThatThrownBy(() -> env.buildJobGraph("no sink"))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'no sink' has no sink");
    }

    @Test
    void parallelismZeroIsRejectedNamingTheOperator() {
        StreamExecutionEnvironment env = env();
        env.fromSequence(0, 10).map(v -> v + 1).name("plus one").setParallelism(0).addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("zero"))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'plus one' has parallelism 0")
                .hasMessageContaining("between 1 and the job's max parallelism 128");
    }

    @Test
    void parallelismAboveMaxParallelismIsRejected() {
        StreamExecutionEnvironment env = env().setMaxParallelism(8);
        env.fromSequence(0, 10).map(v -> v + 1).name("wide").setParallelism(9).addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("too wide"))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'wide' has parallelism 9")
                .hasMessageContaining("max parallelism 8");
    }

    @Test
    void aFunctionThatCannotBeSerializedIsRejectedNamingTheClass() {
        StreamExecutionEnvironment env = env();
        Object notSerializable = new Object();
        env.fromSequence(0, 10).map(v -> notSerializable.hashCode() + v).addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("unserializable"))
                .isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("cannot be serialized")
                .hasMessageContaining("java.lang.Object");
    }

    @Test
    void aCheckpointDirectoryThatCannotBeWrittenIsRejectedAtSubmission() throws Exception {
        Path file = Files.writeString(dir.resolve("a-regular-file"), "x");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofSeconds(1)).setCheckpointDir(file.resolve("checkpoints").toString());
        env.fromSequence(0, 10).addSink(new DiscardingSink<>());
        JobGraph graph = env.buildJobGraph("unwritable");
        assertThatThrownBy(() -> cluster.dispatcher().submitJob(graph).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(JobSubmissionException.class)
                .hasMessageContaining("'unwritable'")
                .hasMessageContaining("not writable")
                .hasMessageContaining(file.toString());
        assertThat(cluster.dispatcher().listJobs().get(10, TimeUnit.SECONDS))
                .noneMatch(j -> j.jobId().equals(graph.jobId()));
    }

    @Test
    void anUnsupportedCheckpointLocationIsRejectedAtSubmission() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1)
                .enableCheckpointing(Duration.ofSeconds(1)).setCheckpointDir("ftp://host/checkpoints");
        env.fromSequence(0, 10).addSink(new DiscardingSink<>());
        JobGraph graph = env.buildJobGraph("ftp");
        assertThatThrownBy(() -> cluster.dispatcher().submitJob(graph).get(30, TimeUnit.SECONDS))
                .cause().isInstanceOf(JobSubmissionException.class)
                .hasMessageContaining("ftp://host/checkpoints");
    }

    @Test
    void aJobNeedingMoreSlotsThanTheClusterHasIsRejected() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(5)
                .setCheckpointDir(dir.resolve("cp").toString());
        env.fromSequence(0, 10).addSink(new DiscardingSink<>());
        JobGraph graph = env.buildJobGraph("too big");
        assertThatThrownBy(() -> cluster.dispatcher().submitJob(graph).get(30, TimeUnit.SECONDS))
                .cause().isInstanceOf(JobSubmissionException.class)
                .hasMessageContaining("needs 5 slots")
                .hasMessageContaining("has only 4");
    }

    @Test
    void theSameJobIdCannotBeSubmittedTwice() {
        JobGraph again = new JobGraph(running, "duplicate", java.util.List.of(), java.util.List.of(), env().jobConfig());
        assertThatThrownBy(() -> cluster.dispatcher().submitJob(again).get(30, TimeUnit.SECONDS))
                .cause().isInstanceOf(JobSubmissionException.class)
                .hasMessageContaining("already running");
    }
}
