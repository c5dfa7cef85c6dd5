package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.tuple.Tuple2;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import static org.awaitility.Awaitility.await;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.Configuration;
import io.sluice.config.StateBackendType;
import io.sluice.storage.BlobContent;
import io.sluice.storage.ForwardingBlobStore;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * RocksDB's changelog checkpoints ({@code state.backend.rocksdb.changelog.materialize-every}) in a cluster:
 *
 * <ul>
 *   <li>the exactly-once scenario of {@link ExactlyOnceITCase} with {@code materialize-every: 3} (two of every three
 *       checkpoints upload only the changelog since the one before), seeded task failures, exact counts; how many
 *       checkpoints complete before a failure depends on the machine's speed, so which restores replay a changelog
 *       is not asserted here;</li>
 *   <li>a failover held until a changelog checkpoint completed ({@code materialize-every: 1000}: every checkpoint
 *       after the first is one): the restore reads changelog segments from storage and the counts are exact.</li>
 * </ul>
 *
 * <p>Seeds: 6 from 20261207, {@code -Dsluice.it.changelogSeeds=N} for more, {@code -Dsluice.test.seed=S} for another
 * first seed.
 */
class ChangelogCheckpointsITCase {
    private static final InjectedFailureCountingScenario.Draw DRAW =
            new InjectedFailureCountingScenario.Draw(30_000, 0, 4);
    private static final int SEEDS = Integer.getInteger("sluice.it.changelogSeeds", 6);
    private static final AtomicLong RESTORED_KEYS = new AtomicLong();
    private static final AtomicInteger SEEDED_RUNS = new AtomicInteger();
    private static LocalCluster cluster;

    @TempDir
    static Path dir;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2)
                .configuration(new Configuration()
                        .setString("state.backend.rocksdb.changelog.materialize-every", "3")
                        .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString()))
                .build();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
        System.out.printf("%d seeded runs, keys restored %d%n", SEEDED_RUNS.get(), RESTORED_KEYS.get());
        if (SEEDED_RUNS.get() > 0) {
            assertThat(RESTORED_KEYS.get()).as("keys restored from checkpoints, over all seeded runs").isPositive();
        }
    }

    static Stream<Arguments> seeds() {
        return InjectedFailureCountingScenario.seeds(20261207L, SEEDS).map(Arguments::of);
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void keyedCountsAreExactAfterInjectedFailures(long seed) throws Exception {
        InjectedFailureCountingScenario.Outcome outcome = InjectedFailureCountingScenario.run(cluster, DRAW, seed, 0,
                StateBackendType.ROCKSDB, dir.resolve("seed-" + seed), "changelog seed " + seed);
        RESTORED_KEYS.addAndGet(outcome.restoredKeys());
        SEEDED_RUNS.incrementAndGet();
    }

    /** Segment reads and writes in checkpoint storage, counted by path. */
    private static final class SegmentCounting extends ForwardingBlobStore {
        final AtomicInteger written = new AtomicInteger();
        final AtomicInteger read = new AtomicInteger();

        SegmentCounting(io.sluice.storage.BlobStore store) {
            super(store);
        }

        private static void count(String path, AtomicInteger counter) {
            if (path.contains("changelog-")) {
                counter.incrementAndGet();
            }
        }

        @Override
        public void put(String path, byte[] data) {
            count(path, written);
            super.put(path, data);
        }

        @Override
        public void put(String path, BlobContent content) {
            count(path, written);
            super.put(path, content);
        }

        @Override
        public byte[] get(String path) {
            count(path, read);
            return super.get(path);
        }

        @Override
        public InputStream openRead(String path) {
            count(path, read);
            return super.openRead(path);
        }

        @Override
        public java.util.Optional<Path> localFile(String path) {
            count(path, read);
            return super.localFile(path);
        }
    }

    /**
     * The task failure is armed only once three checkpoints completed, every one after the first a changelog
     * checkpoint: the restart restores one, reading its segments from storage (no task-local copies), and replays
     * them; the counts are exact.
     */
    @Test
    void aFailoverRestoresAChangelogCheckpointExactly() throws Exception {
        failoverToAChangelogCheckpoint(false);
    }

    /**
     * The same with task-local copies: each changelog checkpoint also kept its whole instance on the task executor,
     * and the restart opens it (local-only files put in place) instead of reading segments from storage; exact counts.
     */
    @Test
    void aFailoverWithTaskLocalCopiesOpensTheKeptInstanceExactly() throws Exception {
        failoverToAChangelogCheckpoint(true);
    }

    private void failoverToAChangelogCheckpoint(boolean localRecovery) throws Exception {
        AtomicReference<SegmentCounting> counting = new AtomicReference<>();
        String gate = "changelog failover " + java.util.UUID.randomUUID();
        InjectedFailures failures = InjectedFailures.onceArmed();
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        long records = 100_000;
        int keys = 8;
        IncrementalCheckpointRecoveryITCase.OPEN.put(gate, false);
        try (LocalCluster local = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(2)
                .configuration(new Configuration()
                        .setString("state.backend.rocksdb.changelog.materialize-every", "1000")
                        .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb-held-" + localRecovery).toString()))
                .blobStoreDecorator(store -> {
                    SegmentCounting c = new SegmentCounting(store);
                    counting.set(c);
                    return c;
                })
                .build()) {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .setStateBackend(StateBackendType.ROCKSDB).setIncrementalCheckpoints(true)
                    .enableCheckpointing(Duration.ofMillis(20)).setCheckpointDir(dir.resolve("held-" + localRecovery).toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(20)))
                    .setLocalRecovery(localRecovery);
            // Up to 5,000 records per subtask, then one a millisecond until the gate opens: the input cannot run out
            // before the failure is armed, however slow the machine.
            env.fromSource(new IncrementalCheckpointRecoveryITCase.HeldSource(gate, records, 5_000,
                            Duration.ofMillis(1)), "numbers")
                    .keyBy(new KeyedCountingJob.ModKey(keys))
                    .map(new KeyedCountingJob.CountPerKey(keys, failures)).name("count per key")
                    .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                    .addSink(sink, "results");
            JobId id = local.submit(env.buildJobGraph("changelog failover"));
            await().atMost(Duration.ofSeconds(60)).until(() -> local.dispatcher().requestJobDetails(id)
                    .get(5, TimeUnit.SECONDS).checkpoints().completed() >= 3 && counting.get().written.get() > 0);
            int readBefore = counting.get().read.get();
            failures.arm();
            IncrementalCheckpointRecoveryITCase.OPEN.put(gate, true);

            JobResult result = local.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(String.valueOf(result.failureStackTrace())).isEqualTo(JobStatus.FINISHED);
            assertThat(failures.thrown()).as("injected failures").isEqualTo(1);
            int segmentsRead = counting.get().read.get() - readBefore;
            long localOnly = local.taskExecutors().stream().mapToLong(te -> te.localState().localOnlyRestores()).sum();
            System.out.printf("changelog failover (local recovery %s): %d segments uploaded, %d read by the restore,"
                    + " %d local-only files restored%n", localRecovery, counting.get().written.get(), segmentsRead,
                    localOnly);
            if (localRecovery) {
                assertThat(segmentsRead).as("changelog segments the restore read from storage").isZero();
                assertThat(localOnly).as("files of kept instances the restore put in place").isPositive();
            } else {
                assertThat(segmentsRead).as("changelog segments the restore read from storage").isPositive();
                assertThat(localOnly).as("files of kept instances the restore put in place").isZero();
            }
            assertThat(CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1))
                    .isEqualTo(KeyedCountingJob.expectedCounts(records, keys));
        } finally {
            IncrementalCheckpointRecoveryITCase.OPEN.remove(gate);
            failures.release();
            sink.release();
        }
    }
}
