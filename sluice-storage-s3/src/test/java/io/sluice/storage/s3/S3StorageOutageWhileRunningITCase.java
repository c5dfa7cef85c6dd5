package io.sluice.storage.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.storage.s3.testing.TcpFaultProxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import io.sluice.config.StateBackendType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * S3 (S3Proxy in this JVM, reached through a {@link TcpFaultProxy}) refusing connections, or
 * accepting them and answering nothing, while the keyed counting job runs with DEFAULT job
 * settings (checkpoints every second, default timeout, tolerable failures and restart strategy;
 * embedded HA in a temporary directory). The S3 client uses the test harness's short timeouts, as
 * the other S3 tests do. The job never leaves RUNNING, restarts nothing, says since when
 * checkpoints fail, resumes checkpointing with the first attempt started after the heal and ends exact.
 *
 * <p>Once with keyed state on the heap and once in RocksDB with incremental checkpoints (its table files
 * uploaded to S3 and shared between checkpoints). Both outages run at the same time, each on its own
 * cluster and proxy, so each backend's run takes about the outage plus 25 s. The outage lasts {@code -Dsluice.it.s3OutageSeconds}: 120 s when unset (as in
 * the issue and in {@code StorageOutageWhileRunningITCase}) and in the {@code soak} profile, 30 s in
 * the default build (the pom's {@code sluice.it.outage-seconds}); under {@link #MIN_OUTAGE} is refused
 * (the hung case must outlast the client's timeouts and the 10 s after which a pending checkpoint
 * shows as failing).
 */
class S3StorageOutageWhileRunningITCase {
    private static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("sluice.it.s3OutageSeconds", 120));
    private static final Duration MIN_OUTAGE = Duration.ofSeconds(20);
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final double RATE = 20_000;
    private static final int KEYS = 8;
    private static S3ProxyServer server;

    @TempDir
    Path dir;

    @BeforeAll
    static void startS3() throws Exception {
        server = S3ProxyServer.start("bucket");
    }

    @AfterAll
    static void stopS3() throws Exception {
        server.close();
    }

    @ParameterizedTest
    @EnumSource(StateBackendType.class)
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void s3RefusingOrHangingWhileTheJobRunsNeverRestartsOrFailsItAndCheckpointsResumeAfterTheHeal(
            StateBackendType backend) {
        assertThat(OUTAGE).as("-Dsluice.it.s3OutageSeconds: an outage shorter than %s would not test the hung case",
                MIN_OUTAGE).isGreaterThanOrEqualTo(MIN_OUTAGE);
        String b = backend.backendName();
        CompletableFuture<Void> refused = CompletableFuture.runAsync(() -> run("refused-" + b,
                dir.resolve("refused"), backend, TcpFaultProxy::refuseConnections,
                // New connections are refused; an upload in flight when the proxy dropped its connection (a large
                // RocksDB file, on a loaded machine) fails with "The target server failed to respond" instead.
                "Connection refused|failed to respond"));
        CompletableFuture<Void> hung = CompletableFuture.runAsync(() ->
                run("hung-" + b, dir.resolve("hung"), backend, TcpFaultProxy::stall, "failed"));
        CompletableFuture.allOf(refused, hung).join();
    }

    /** {@code expectedCause}: a regular expression the status's failing summary must contain during the outage. */
    private static void run(String name, Path dir, StateBackendType backend, Consumer<TcpFaultProxy> outage,
                            String expectedCause) {
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        // Input for the outage and 15 s more: the first checkpoints before it (3 s), checkpoints after
        // the heal, and room for a loaded machine; the job runs until its input ends.
        long records = (long) (RATE * (OUTAGE.toSeconds() + 15));
        try (TcpFaultProxy proxy = new TcpFaultProxy("127.0.0.1", server.port());
             LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                     .configuration(S3ProxyServer.clientConfiguration(proxy.httpEndpoint())
                             .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString()))
                     .build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(INTERVAL).setCheckpointDir("s3://bucket/" + name)
                    .setStateBackend(backend).setIncrementalCheckpoints(true); // the heap ignores incremental
            KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(RATE), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = cluster.submit(env.buildJobGraph("s3 " + name + " while running"));
            await(name + ": first checkpoints").atMost(Duration.ofSeconds(60))
                    .until(() -> details(cluster, id).checkpoints().completed() >= 3);

            outage.accept(proxy);
            await(name + ": RUNNING through the outage").during(OUTAGE).atMost(OUTAGE.plusSeconds(30))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> details(cluster, id).status() == JobStatus.RUNNING);
            CheckpointStats during = details(cluster, id).checkpoints();
            assertThat(during.failingSummary()).as(name + ": " + during).isNotNull().containsPattern(expectedCause);

            // Counted, not timed (a loaded machine stretches every duration): after the heal at most the attempt
            // in flight at the heal fails, and the first one started after it completes. That the coordinator
            // starts the next attempt one interval after a failure (no backoff) is CheckpointCoordinatorTest's.
            long failedAtHeal = details(cluster, id).checkpoints().failed();
            long healedAt = System.currentTimeMillis();
            proxy.heal();
            CheckpointStats[] resumed = new CheckpointStats[1];
            await(name + ": a checkpoint after the heal").atMost(Duration.ofSeconds(30))
                    .until(() -> firstCompletionAfter(resumed[0] = details(cluster, id).checkpoints(), healedAt) > 0);
            long resumedAfter = firstCompletionAfter(resumed[0], healedAt) - healedAt;
            long failedAfterHeal = resumed[0].failed() - failedAtHeal;
            System.out.printf("S3 %s: checkpoints resumed %d ms after the heal, %d attempt(s) failed after it (outage %d s)%n",
                    name, resumedAfter, failedAfterHeal, OUTAGE.toSeconds());
            assertThat(failedAfterHeal).as(name + ": checkpoints failed after the heal before one completed (only the one"
                    + " in flight at the heal may): " + resumed[0]).isLessThanOrEqualTo(1);

            JobResult result = cluster.dispatcher().requestJobResult(id).get(OUTAGE.toSeconds() + 120, TimeUnit.SECONDS);
            assertThat(result.status()).as(name + ": " + result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            JobDetails end = details(cluster, id);
            assertThat(end.restarts()).as(name + ": restarts").isZero();
            List<JobStatus> statuses = end.transitions().stream().map(JobStatusTransition::status).toList();
            assertThat(statuses).as(name).doesNotContain(JobStatus.RESTARTING, JobStatus.FAILING, JobStatus.FAILED)
                    .endsWith(JobStatus.RUNNING, JobStatus.FINISHED);
            Map<Long, Long> last = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(last).as(name + ": exact counts").isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
        } catch (Exception e) {
            throw new AssertionError(name + ": " + e, e);
        } finally {
            sink.release();
        }
    }

    /** Wall-clock time of the first checkpoint completed after {@code millis}, or -1. */
    private static long firstCompletionAfter(CheckpointStats stats, long millis) {
        return stats.recent().stream()
                .mapToLong(c -> c.triggerTimestampMillis() + (long) Math.ceil(c.durationMillis()))
                .filter(t -> t > millis).min().orElse(-1);
    }

    private static JobDetails details(LocalCluster cluster, JobId id) throws Exception {
        return cluster.dispatcher().requestJobDetails(id).get(5, TimeUnit.SECONDS);
    }
}
