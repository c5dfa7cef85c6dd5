package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.source.SequenceSource;
import io.sluice.checkpoint.CheckpointStats;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendType;
import io.sluice.cluster.LocalCluster;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobStatusTransition;
import io.sluice.storage.FaultInjectingBlobStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The production failure Sluice was built around, while the job runs, with DEFAULT settings (as a
 * new user runs it: checkpoints every second, local checkpoint storage, embedded HA on a
 * directory, the default restart strategy, checkpoint timeout and tolerable failures): the keyed
 * counting job at 20,000 records/s while checkpoint storage refuses connections (or hangs) for
 * {@link #OUTAGE}, then heals. The job never leaves RUNNING, restarts nothing, says since when
 * checkpoints fail and why, resumes checkpointing with the first attempt started after the heal, and ends with
 * the exact counts.
 *
 * <p>Once with the default keyed state on the heap, and once in RocksDB with incremental checkpoints
 * (its table files shared between checkpoints), the only setting changed. The two outages run at the
 * same time, each on its own cluster, to keep the suite short. The
 * outage lasts {@code -Dsluice.it.outageSeconds}: 120 s when unset (as in the issue) and in the
 * {@code soak} profile, 30 s in the default build (the pom's {@code sluice.it.outage-seconds}), which
 * still crosses every threshold asserted on: the hung checkpoint shows as failing once it has been
 * pending 10 s ({@code CheckpointCoordinator}), so an outage under {@link #MIN_OUTAGE} is refused.
 */
class StorageOutageWhileRunningITCase {
    static final Duration OUTAGE = Duration.ofSeconds(Long.getLong("sluice.it.outageSeconds", 120));
    /** Twice the 10 s after which a pending checkpoint on hung storage shows as failing. */
    static final Duration MIN_OUTAGE = Duration.ofSeconds(20);
    private static final Duration INTERVAL = Duration.ofSeconds(1);
    private static final double RATE = 20_000;
    private static final int KEYS = 8;

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(StateBackendType.class)
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void refusedAndHungStorageWhileRunningNeverRestartOrFailTheJobAndCheckpointsResumeAfterTheHeal(
            StateBackendType backend) throws Exception {
        assertThat(OUTAGE).as("-Dsluice.it.outageSeconds: an outage shorter than %s would not test the hung case",
                MIN_OUTAGE).isGreaterThanOrEqualTo(MIN_OUTAGE);
        String b = backend.backendName();
        CompletableFuture<Void> refused = CompletableFuture.runAsync(() -> run("refused-" + b, dir.resolve("refused"),
                backend, FaultInjectingBlobStore::refuseConnections, "Connection refused"));
        CompletableFuture<Void> hung = CompletableFuture.runAsync(() -> run("hung-" + b, dir.resolve("hung"),
                backend, FaultInjectingBlobStore::hang, "has been pending"));
        CompletableFuture.allOf(refused, hung).join();
    }

    /** One scenario on its own cluster; throws an AssertionError naming the scenario if it fails. */
    private static void run(String name, Path dir, StateBackendType backend, Consumer<FaultInjectingBlobStore> outage,
                            String expectedCause) {
        AtomicReference<FaultInjectingBlobStore> faults = new AtomicReference<>();
        MaxCountPerKeySink sink = new MaxCountPerKeySink();
        // Input for the outage and 15 s more: the first checkpoints before it (3 s), checkpoints after
        // the heal, and room for a loaded machine; the job runs until its input ends.
        long records = (long) (RATE * (OUTAGE.toSeconds() + 15));
        try (LocalCluster cluster = LocalCluster.builder().haDirectory(dir.resolve("ha"))
                .configuration(new Configuration().setString("state.backend.rocksdb.local-dir",
                        dir.resolve("rocksdb").toString()))
                .blobStoreDecorator(FaultInjectingBlobStore.capturingInto(faults)).build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(INTERVAL).setCheckpointDir(dir.resolve("checkpoints").toString());
            if (backend != StateBackendType.HEAP) { // the heap is the default, left unset as a new user does
                env.setStateBackend(backend).setIncrementalCheckpoints(true);
            }
            KeyedCountingJob.build(env, SequenceSource.bounded(0, records - 1).withRate(RATE), KEYS,
                    InjectedFailures.none(), sink);
            JobId id = cluster.submit(env.buildJobGraph("storage " + name + " while running"));
            await(name + ": first checkpoints").atMost(Duration.ofSeconds(60))
                    .until(() -> details(cluster, id).checkpoints().completed() >= 3);

            outage.accept(faults.get());
            long outageStart = System.currentTimeMillis();
            // For the whole outage the job stays RUNNING; checks status every 500 ms.
            await(name + ": RUNNING through the outage").during(OUTAGE).atMost(OUTAGE.plusSeconds(30))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> details(cluster, id).status() == JobStatus.RUNNING);
            JobDetails during = details(cluster, id);
            CheckpointStats stats = during.checkpoints();
            assertThat(stats.failing()).as(name + ": failing during the outage: " + stats).isTrue();
            assertThat(stats.failingSummary()).as(name).startsWith("checkpoints failing since ").contains(expectedCause);
            assertThat(stats.failingSinceMillis()).as(name).isGreaterThanOrEqualTo(outageStart - INTERVAL.toMillis());
            assertThat(during.restarts()).as(name + ": restarts during the outage").isZero();

            // Counted, not timed (a loaded machine stretches every duration): after the heal at most the attempt
            // in flight at the heal fails, and the first one started after it completes. That the coordinator
            // starts the next attempt one interval after a failure (no backoff) is CheckpointCoordinatorTest's.
            long failedAtHeal = details(cluster, id).checkpoints().failed();
            long healedAt = System.currentTimeMillis();
            faults.get().heal();
            CheckpointStats[] resumed = new CheckpointStats[1];
            await(name + ": a checkpoint after the heal").atMost(Duration.ofSeconds(30))
                    .until(() -> firstCompletionAfter(resumed[0] = details(cluster, id).checkpoints(), healedAt) > 0);
            long resumedAfter = firstCompletionAfter(resumed[0], healedAt) - healedAt;
            long failedAfterHeal = resumed[0].failed() - failedAtHeal;
            System.out.printf("%s: checkpoints resumed %d ms after the heal, %d attempt(s) failed after it (outage %d s)%n",
                    name, resumedAfter, failedAfterHeal, OUTAGE.toSeconds());
            assertThat(failedAfterHeal).as(name + ": checkpoints failed after the heal before one completed (only the one"
                    + " in flight at the heal may): " + resumed[0]).isLessThanOrEqualTo(1);
            assertThat(details(cluster, id).checkpoints().failing()).as(name + ": no longer failing").isFalse();

            JobResult result = cluster.dispatcher().requestJobResult(id).get(OUTAGE.toSeconds() + 120, TimeUnit.SECONDS);
            assertThat(result.status()).as(name + ": " + result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            JobDetails end = details(cluster, id);
            assertThat(end.restarts()).as(name + ": restarts").isZero();
            List<JobStatus> statuses = end.transitions().stream().map(JobStatusTransition::status).toList();
            assertThat(statuses).as(name + ": the job never left RUNNING until it finished")
                    .doesNotContain(JobStatus.RESTARTING, JobStatus.FAILING, JobStatus.FAILED, JobStatus.SUSPENDED)
                    .endsWith(JobStatus.RUNNING, JobStatus.FINISHED);
            assertThat(statuses.stream().filter(s -> s == JobStatus.RUNNING)).hasSize(1);
            assertThat(sink.maxPerKey()).as(name + ": exact counts").isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));
            assertThat(sink.records()).as(name + ": no record replayed (no restart)").isEqualTo(records);
        } catch (Exception e) {
            throw new AssertionError(name + ": " + e, e);
        } finally {
            if (faults.get() != null) {
                faults.get().heal();
            }
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
