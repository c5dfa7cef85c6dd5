package io.sluice.storage.s3.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobDetails;
import io.sluice.protocol.VertexStatus;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The S3 exactly-once file sink on a {@link LocalCluster}, writing to S3Proxy: a keyed count whose every
 * (key, count) line must be visible exactly once, through seeded task failures, a job-manager failover and
 * S3 refusing connections during writes and commits. While the job runs, a reader lists and reads the bucket again and again and must never see a
 * partial object; uploads of failed attempts must have existed and been aborted.
 */
class S3ExactlyOnceFileSinkITCase {
    private static final int KEYS = 8;
    private static final String BUCKET = "sink-it";
    private static CountingS3Proxy s3;

    @TempDir
    Path dir;
    private InjectedFailures failures = InjectedFailures.none();

    @org.junit.jupiter.api.io.TempDir
    static java.nio.file.Path s3Directory;

    @BeforeAll
    static void start() throws Exception {
        s3 = new CountingS3Proxy(BUCKET, s3Directory);
        CountingS3Proxy.credentialsAsSystemProperties();

    }

    @AfterAll
    static void stop() throws Exception {
        CountingS3Proxy.clearCredentials();
        s3.close();
    }

    @AfterEach
    void release() {
        failures.release();
    }

    private void countingJob(StreamExecutionEnvironment env, long records, double rate, String prefix,
                             long maxPartFileBytes) {
        countingJob(env, records, rate, prefix, maxPartFileBytes, s3.endpoint());
    }

    private void countingJob(StreamExecutionEnvironment env, long records, double rate, String prefix,
                             long maxPartFileBytes, String endpoint) {
        env.fromSource(SequenceSource.bounded(0, records - 1).withRate(rate), "numbers")
                .keyBy(new KeyedCountingJob.ModKey(KEYS))
                .map(new KeyedCountingJob.CountPerKey(KEYS, failures)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .map(t -> t.f0() + "," + t.f1()).returns(Serializers.STRING)
                .sinkTo(S3ExactlyOnceFileSink.<String>builder("s3://" + BUCKET + "/" + prefix)
                        .maxPartFileBytes(maxPartFileBytes)
                        .s3Options(CountingS3Proxy.sinkOptions(endpoint)).build(), "s3 " + prefix);
    }

    private StreamExecutionEnvironment env() {
        return StreamExecutionEnvironment.create().setParallelism(2)
                .enableCheckpointing(Duration.ofMillis(100))
                .setCheckpointDir(dir.resolve("checkpoints").toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
    }

    /** Reads the whole output as a reader would, until {@code done}; every object must be whole lines of "k,n". */
    private static int readWhileRunning(String prefix, CompletableFuture<?> done) throws Exception {
        int reads = 0;
        while (!done.isDone()) {
            try {
                done.get(100, TimeUnit.MILLISECONDS); // a pause between reads, ended early by the job's end
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                // the job still runs (or failed: the caller asserts its result)
            }
            for (String key : s3.visibleKeys(BUCKET, prefix + "/")) {
                assertThat(key).matches(prefix + "/part-[01]-[0-9a-f]{8}-\\d+");
            }
            for (String line : s3.visibleLines(BUCKET, prefix + "/")) {
                assertThat(line).as("a whole record").matches("\\d+,\\d+");
            }
            reads++;
        }
        return reads;
    }

    /** Prints which objects hold a record that is in more than one, for diagnosis. */
    private static void printDuplicates(String prefix) {
        Map<String, List<String>> where = new HashMap<>();
        for (String key : s3.visibleKeys(BUCKET, prefix + "/")) {
            for (String line : s3.objectLines(BUCKET, key)) {
                where.computeIfAbsent(line, l -> new ArrayList<>()).add(key);
            }
        }
        Map<String, Integer> pairs = new java.util.TreeMap<>();
        where.forEach((line, keys) -> {
            if (keys.size() > 1) {
                pairs.merge(String.join(" & ", keys), 1, Integer::sum);
            }
        });
        System.out.println("DUPLICATES (objects -> records in both): " + pairs);
    }

    /** Each key's counts 1..n appear exactly once: nothing lost, nothing twice. */
    private static void assertExactlyOnce(List<String> lines, long records) {
        Map<Long, List<Long>> perKey = new HashMap<>();
        for (String line : lines) {
            String[] kv = line.split(",");
            perKey.computeIfAbsent(Long.parseLong(kv[0]), k -> new ArrayList<>()).add(Long.parseLong(kv[1]));
        }
        Map<Long, Long> expected = KeyedCountingJob.expectedCounts(records, KEYS);
        assertThat(perKey.keySet()).isEqualTo(expected.keySet());
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            List<Long> counts = perKey.get(e.getKey());
            assertThat(counts).as("key %d", e.getKey()).hasSize(e.getValue().intValue()).doesNotHaveDuplicates();
            assertThat(counts.stream().mapToLong(Long::longValue).max().orElse(0)).isEqualTo(e.getValue());
        }
    }

    @Test
    void seededTaskFailuresLeaveEveryRecordVisibleExactlyOnceAndAbortTheFailedAttemptsUploads() throws Exception {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("S3ExactlyOnceFileSinkITCase seed " + seed);
        Random random = new Random(seed);
        long records = 20_000;
        // Failures anywhere in the input, one of them among its last 400 records: a sink subtask may have
        // reached the end of its input by then (one often lags behind the other). It must not have committed
        // its last part files yet: they wait for its final checkpoint, so the replay after the restore
        // makes them visible once (before the final checkpoint, failures had to stay in the first 40 %).
        List<Long> at = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            at.add(2_000L + random.nextInt((int) records - 2_400));
        }
        at.add(records - 400 + random.nextInt(400));
        failures = InjectedFailures.at(at);
        int abortedBefore = s3.aborted.get();
        int reads;
        try (LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = env();
            // part files of about 300 bytes: several roll between two barriers (a subtask writes about 1.4 KB per
            // 100 ms), so a failure almost always finds uploads rolled since the last barrier, which it aborts
            countingJob(env, records, 4_000, "failures", 300);
            JobId id = cluster.submit(env.buildJobGraph("exactly-once s3 files"));
            CompletableFuture<JobResult> result = cluster.dispatcher().requestJobResult(id);
            reads = readWhileRunning("failures", result);
            JobResult r = result.get(2, TimeUnit.MINUTES);
            assertThat(r.status()).as("seed %d: %s", seed, r.failureMessage()).isEqualTo(JobStatus.FINISHED);
        }
        int aborted = s3.aborted.get() - abortedBefore;
        System.out.printf("S3 sink (seed %d): %d reads of the bucket while running, %d uploads of failed attempts"
                + " aborted, %d objects visible%n", seed, reads, aborted, s3.visibleKeys(BUCKET, "failures/").size());
        assertThat(failures.thrown()).isEqualTo(3);
        assertThat(aborted).as("uncommitted uploads existed and were aborted (seed %d)", seed).isPositive();
        assertThat(s3.openUploads(BUCKET, "failures/")).as("no upload lingers (seed %d)", seed).isEmpty();
        try {
            assertExactlyOnce(s3.visibleLines(BUCKET, "failures/"), records);
        } catch (AssertionError e) {
            printDuplicates("failures");
            throw e;
        }
    }

    @Test
    void aJobManagerFailoverCommitsTheRestoredCheckpointAndShowsCommitsInStatus() throws Exception {
        long records = 30_000; // 6 s of input: the failover happens while the job runs
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha")).build()) {
            StreamExecutionEnvironment env = env();
            countingJob(env, records, 5_000, "failover", S3ExactlyOnceFileSink.DEFAULT_MAX_PART_FILE_BYTES);
            JobId id = cluster.submit(env.buildJobGraph("exactly-once s3 files across a failover"));
            await().atMost(Duration.ofSeconds(60)).ignoreException(java.util.concurrent.TimeoutException.class).until(() -> {
                JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
                VertexStatus sink = d.vertices().get(d.vertices().size() - 1);
                assertThat(d.status()).as("the job still runs when it is checked before the failover")
                        .isEqualTo(JobStatus.RUNNING);
                return d.checkpoints().completed() >= 2 && sink.commits() != null && sink.commits().committed() > 0;
            });
            JobDetails before = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
            VertexStatus sink = before.vertices().get(before.vertices().size() - 1);
            assertThat(sink.name()).contains("Sink: s3 failover");
            assertThat(sink.commits().lastCommitError()).isNull();
            assertThat(s3.visibleKeys(BUCKET, "failover/")).as("committed before the failover").isNotEmpty();

            LocalCluster.JobManager standby = cluster.startJobManager();
            cluster.stopJobManager(cluster.jobManagers().get(0));
            await().atMost(Duration.ofSeconds(20)).until(() -> standby.dispatcher().isLeader());
            JobResult result = standby.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).isEqualTo(JobStatus.FINISHED);
        }
        assertThat(s3.openUploads(BUCKET, "failover/")).isEmpty();
        assertExactlyOnce(s3.visibleLines(BUCKET, "failover/"), records);
    }

    /**
     * S3 failing the sink's commits, then refusing all its connections, while the job runs: commits of
     * completed checkpoints wait and are retried (and show in the job's status); the writer's uploads at the
     * barriers fail, which declines those checkpoints while the tasks run on (no restart; the writer keeps
     * its part files for the next barrier, and a subtask whose input ended pre-commits its last output at a
     * later final checkpoint); once S3 answers, the job finishes with every record visible exactly once.
     */
    @Test
    void s3RefusingConnectionsDuringWritesAndCommitsThenBackLosesAndDuplicatesNothing() throws Exception {
        long records = 40_000; // 8 s of input
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", s3.port());
             LocalCluster cluster = LocalCluster.builder().build()) {
            StreamExecutionEnvironment env = env();
            countingJob(env, records, 5_000, "outage", S3ExactlyOnceFileSink.DEFAULT_MAX_PART_FILE_BYTES,
                    proxy.httpEndpoint());
            JobId id = cluster.submit(env.buildJobGraph("exactly-once s3 files through an outage"));
            await("first commits").atMost(Duration.ofSeconds(60))
                    .ignoreException(java.util.concurrent.TimeoutException.class)
                    .until(() -> sinkCommits(cluster, id) != null && sinkCommits(cluster, id).committed() > 0);

            // First only the commits fail: checkpoints still complete, so committables wait and are retried.
            s3.failCompletes.set(true);
            int completedBefore = s3.completed.get();
            await("commit retries while S3 fails the commits").atMost(Duration.ofSeconds(60))
                    .ignoreException(java.util.concurrent.TimeoutException.class).until(() -> {
                        io.sluice.operators.CommitStats c = sinkCommits(cluster, id);
                        return c != null && c.commitRetries() >= 2 && c.pendingCommittables() > 0;
                    });
            assertThat(sinkCommits(cluster, id).lastCommitError()).contains("complete upload");

            // Then S3 refuses every connection: the retried commits are refused, and the uploads at the barriers
            // fail and decline their checkpoints.
            proxy.refuseConnections();
            await("commits refused and checkpoints declined while S3 refuses").atMost(Duration.ofSeconds(60))
                    .ignoreException(java.util.concurrent.TimeoutException.class).until(() -> {
                        JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
                        io.sluice.operators.CommitStats c = sinkCommits(cluster, id);
                        String failing = d.checkpoints().failingSummary();
                        return c != null && c.lastCommitError() != null && c.lastCommitError().contains("Connection refused")
                                && failing != null && failing.contains("could not upload");
                    });
            JobDetails during = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
            io.sluice.operators.CommitStats commits = sinkCommits(cluster, id);
            System.out.println("S3 sink during the outage: " + during.restarts() + " restarts; checkpoints: "
                    + during.checkpoints().failingSummary() + "; commits: " + commits);
            assertThat(during.restarts()).as("a pre-commit S3 refuses declines that checkpoint; the tasks run on")
                    .isZero();
            assertThat(during.checkpoints().failingSummary()).contains("storage").contains("Connection refused");
            assertThat(commits.lastCommitError()).contains("Connection refused").contains("complete upload");
            assertThat(commits.pendingCommittables()).isPositive();
            assertThat(s3.completed.get()).as("no commit reaches S3 while it fails or refuses")
                    .isLessThanOrEqualTo(completedBefore + 2); // at most the ones under way when it began

            s3.failCompletes.set(false);
            proxy.heal();
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(String.valueOf(result.failureMessage())).isEqualTo(JobStatus.FINISHED);
            assertThat(cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS).restarts())
                    .as("no restart through the whole outage").isZero();
        } finally {
            s3.failCompletes.set(false);
        }
        assertThat(s3.openUploads(BUCKET, "outage/")).isEmpty();
        assertExactlyOnce(s3.visibleLines(BUCKET, "outage/"), records);
    }

    private static io.sluice.operators.CommitStats sinkCommits(LocalCluster cluster, JobId id) throws Exception {
        JobDetails d = cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
        // no vertices while the job initializes; the sink's commit statistics once its task is running
        return d.vertices().isEmpty() ? null : d.vertices().get(d.vertices().size() - 1).commits();
    }
}
