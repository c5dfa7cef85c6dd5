package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.CheckpointingOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobDetails;
import io.sluice.jobmaster.JobResult;
import io.sluice.jobmaster.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Exactly-once state under task failures: a keyed counting job over a bounded sequence fails at
 * random records (seeded; the seed is in the test name and printed) and restarts from its latest
 * checkpoint. The last count emitted per key is the job's final state and must equal the exact
 * count: nothing lost, nothing counted twice. (The sink itself is at-least-once: it sees replayed
 * records after a restart, which is why the check reads the final state per key.) Each seed runs
 * with small state inline in the checkpoint metadata (the default) and in state files (threshold 0).
 *
 * <p>The counter is a mutable accumulator ({@link MutableCountingJob}: {@code acc.n++;
 * state.update(acc)}), so a snapshot sharing values with the running task would fail the check.
 * Each run counts the keys restored from a checkpoint and the records replayed after restarts; over
 * all runs both must be positive, so a suite in which no restore happened fails.
 */
class ExactlyOnceITCase {
    private static final int KEYS = 16;
    private static final AtomicInteger RESTORED_FROM_CHECKPOINT = new AtomicInteger();
    private static final AtomicLong RESTORED_KEYS = new AtomicLong();
    private static final AtomicLong REPLAYED_RECORDS = new AtomicLong();
    private static LocalCluster cluster;

    @TempDir
    static Path checkpoints;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2).build();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
        // At least some runs must have restored from a completed checkpoint (not only from scratch).
        assertThat(RESTORED_FROM_CHECKPOINT.get()).as("runs that failed after a completed checkpoint").isPositive();
        assertThat(RESTORED_KEYS.get()).as("keys restored from checkpoints, over all runs").isPositive();
        assertThat(REPLAYED_RECORDS.get()).as("records replayed after restarts, over all runs").isPositive();
    }

    /**
     * Every seed twice: with the default inline-state threshold (the small counting state is carried
     * inline in the metadata) and with 0 (every snapshot goes to a state file).
     */
    static Stream<Arguments> seedsAndInlineThresholds() {
        long base = Long.getLong("sluice.test.seed", 20261129L);
        return LongStream.range(0, 24).boxed().flatMap(i -> Stream.of(
                Arguments.of(base + i, CheckpointingOptions.DEFAULT_INLINE_STATE_THRESHOLD),
                Arguments.of(base + i, 0)));
    }

    @ParameterizedTest(name = "seed {0}, inline-state threshold {1}")
    @MethodSource("seedsAndInlineThresholds")
    void keyedCountsAreExactAfterInjectedFailures(long seed, int inlineStateThreshold) throws Exception {
        Random random = new Random(seed);
        long records = 20_000 + random.nextInt(30_000);
        int parallelism = 1 + random.nextInt(2);
        TreeSet<Long> failAt = new TreeSet<>();
        int failures = 1 + random.nextInt(4);
        while (failAt.size() < failures) {
            failAt.add((long) random.nextInt((int) records));
        }
        System.out.printf("seed %d: %d records, parallelism %d, failures at %s%n", seed, records, parallelism, failAt);

        InjectedFailures plan = InjectedFailures.at(failAt);
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                    .setParallelism(parallelism)
                    .setInlineStateThreshold(inlineStateThreshold)
                    .enableCheckpointing(Duration.ofMillis(5 + random.nextInt(20)))
                    .setCheckpointDir(checkpoints.resolve("seed-" + seed + "-inline-" + inlineStateThreshold).toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(100, Duration.ofMillis(random.nextInt(10))));
            MutableCountingJob.Run run = MutableCountingJob.build(env,
                    SequenceSource.bounded(0, records - 1).withRate(150_000 + random.nextInt(150_000)), KEYS, plan, sink);
            JobId id = cluster.submit(env.buildJobGraph("exactly-once seed " + seed + ", inline threshold " + inlineStateThreshold));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);

            assertThat(result.status()).as("seed %d: %s", seed, result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(plan.thrown()).as("seed %d: injected failures", seed).isEqualTo(failures);
            Map<Long, Long> finalState = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
            assertThat(finalState).as("seed %d: final count per key", seed)
                    .isEqualTo(KeyedCountingJob.expectedCounts(records, KEYS));

            JobDetails details = cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS);
            // Two subtasks may fail at nearly the same time; the second failure lands while the job is
            // already restarting and causes no extra restart.
            assertThat(details.restarts()).as("seed %d: restarts", seed).isBetween(1, failures);
            long restoredKeys = run.restoredKeys();
            // Every (key, count) pair is emitted once per run without failures: the rest are replays.
            long replayed = sink.count() - records;
            run.release();
            assertThat(replayed).as("seed %d: records replayed", seed).isNotNegative();
            if (restoredKeys > 0) {
                RESTORED_FROM_CHECKPOINT.incrementAndGet();
            }
            RESTORED_KEYS.addAndGet(restoredKeys);
            REPLAYED_RECORDS.addAndGet(replayed);
            System.out.printf("seed %d: FINISHED, %d restarts, %d checkpoints completed, %d keys restored,"
                    + " %d records replayed%n", seed, details.restarts(), details.checkpoints().completed(),
                    restoredKeys, replayed);
        } finally {
            plan.release();
            sink.release();
        }
    }
}
