package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.CheckpointingOptions;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.StateBackendType;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The seeded exactly-once scenario that {@link ExactlyOnceITCase}, {@link RemoteRpcExactlyOnceITCase}
 * and {@link NetworkDataExchangeITCase} run on differently built {@link LocalCluster}s: the keyed
 * counting job with a mutable accumulator ({@link MutableCountingJob}) over a bounded sequence,
 * failing at records drawn from the seed and restarting from its latest checkpoint. The last count
 * emitted per key is the job's final state and must equal the exact count: nothing lost, nothing
 * counted twice. (The sink itself is at-least-once: it sees replayed records after a restart, which
 * is why the check reads the final state per key.)
 *
 * <p>{@link #run} checks, for every run: the job FINISHED, every planned failure was thrown, the
 * final count per key is exact, the job restarted between once and once per failure (two subtasks
 * may fail at nearly the same time; the second failure lands while the job is already restarting
 * and causes no extra restart), the job details report the task failures, and the sink saw no fewer
 * records than the source emitted. What a suite checks over all its runs (restores happened,
 * checkpoints completed) it checks on the returned {@link Outcome}s.
 *
 * <p>Threading: called from the test thread only.
 */
final class InjectedFailureCountingScenario {
    static final int KEYS = 16;

    /**
     * How a suite draws a run from its seed, in this order: records ({@code 20_000} plus up to
     * {@code extraRecords}), the parallelism (1 or 2, unless fixed), the number of failures (1 to
     * {@code maxFailures}) and the records they fail at; then the checkpoint interval, the restart
     * delay and the source rate.
     *
     * @param fixedParallelism the parallelism of every run, or 0 to draw 1 or 2 from the seed
     */
    record Draw(int extraRecords, int fixedParallelism, int maxFailures) {}

    /** What one run drew from its seed. */
    record Plan(long seed, long records, int parallelism, TreeSet<Long> failAt) {
        int failures() {
            return failAt.size();
        }
    }

    /** What one run, which passed the checks of {@link #run}, saw. */
    record Outcome(Plan plan, JobDetails details, long restoredKeys, long replayedRecords) {
        long completedCheckpoints() {
            return details.checkpoints().completed();
        }
    }

    private InjectedFailureCountingScenario() {}

    /** Seeds {@code base .. base + count - 1}, {@code base} from {@code -Dsluice.test.seed} else {@code defaultBase}. */
    static Stream<Long> seeds(long defaultBase, int count) {
        long base = Long.getLong("sluice.test.seed", defaultBase);
        return LongStream.range(0, count).mapToObj(i -> base + i);
    }

    /**
     * Every seed of {@link #seeds} twice: with the default inline-state threshold (the small counting
     * state is carried inline in the checkpoint metadata) and with 0 (every snapshot goes to a state
     * file).
     */
    static Stream<Arguments> seedsAndInlineThresholds(long defaultBase, int count) {
        return seeds(defaultBase, count).flatMap(seed -> Stream.of(
                Arguments.of(seed, CheckpointingOptions.DEFAULT_INLINE_STATE_THRESHOLD),
                Arguments.of(seed, 0)));
    }

    /**
     * {@link #seedsAndInlineThresholds} once per state backend: {@code heapCount} seeds from
     * {@code defaultBase} on the heap, {@code rocksDbCount} seeds from {@code defaultBase} in RocksDB
     * (its checkpoints are full snapshots in the same format). Arguments: seed, threshold, backend.
     */
    static Stream<Arguments> seedsInlineThresholdsAndBackends(long defaultBase, int heapCount, int rocksDbCount) {
        return Stream.concat(
                seedsAndInlineThresholds(defaultBase, heapCount).map(a -> withBackend(a, StateBackendType.HEAP)),
                seedsAndInlineThresholds(defaultBase, rocksDbCount).map(a -> withBackend(a, StateBackendType.ROCKSDB)));
    }

    /** Every seed of {@link #seeds} once per state backend. Arguments: seed, backend. */
    static Stream<Arguments> seedsAndBackends(long defaultBase, int count) {
        return seeds(defaultBase, count).flatMap(seed -> Stream.of(
                Arguments.of(seed, StateBackendType.HEAP), Arguments.of(seed, StateBackendType.ROCKSDB)));
    }

    private static Arguments withBackend(Arguments a, StateBackendType backend) {
        Object[] args = java.util.Arrays.copyOf(a.get(), a.get().length + 1);
        args[args.length - 1] = backend;
        return Arguments.of(args);
    }

    /** Draws the run of {@code seed} from {@code random} (seeded with it), and prints it. */
    private static Plan plan(long seed, Random random, Draw draw) {
        long records = 20_000 + random.nextInt(draw.extraRecords());
        int parallelism = draw.fixedParallelism() > 0 ? draw.fixedParallelism() : 1 + random.nextInt(2);
        TreeSet<Long> failAt = new TreeSet<>();
        int failures = 1 + random.nextInt(draw.maxFailures());
        while (failAt.size() < failures) {
            failAt.add((long) random.nextInt((int) records));
        }
        System.out.printf("seed %d: %d records, parallelism %d, failures at %s%n", seed, records, parallelism, failAt);
        return new Plan(seed, records, parallelism, failAt);
    }

    /**
     * Runs the scenario of {@code seed} on {@code cluster} and checks it (see the class comment).
     *
     * @param inlineStateThreshold the job's inline-state threshold, or {@code null} to leave the
     *                             job's default
     */
    static Outcome run(LocalCluster cluster, Draw draw, long seed, Integer inlineStateThreshold, Path checkpointDir,
                       String jobName) throws Exception {
        return run(cluster, draw, seed, inlineStateThreshold, null, checkpointDir, jobName);
    }

    /**
     * @param backend the job's state backend ({@code state.backend}), or {@code null} for the cluster's
     *                default (the heap unless the cluster's configuration says otherwise)
     */
    static Outcome run(LocalCluster cluster, Draw draw, long seed, Integer inlineStateThreshold,
                       StateBackendType backend, Path checkpointDir, String jobName) throws Exception {
        Random random = new Random(seed);
        Plan plan = plan(seed, random, draw);
        InjectedFailures failures = InjectedFailures.at(plan.failAt());
        CollectingSink<Tuple2<Long, Long>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(plan.parallelism());
            if (inlineStateThreshold != null) {
                env.setInlineStateThreshold(inlineStateThreshold);
            }
            if (backend != null) {
                env.setStateBackend(backend);
            }
            env.enableCheckpointing(Duration.ofMillis(5 + random.nextInt(20)))
                    .setCheckpointDir(checkpointDir.toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(100, Duration.ofMillis(random.nextInt(10))));
            MutableCountingJob.Run run = MutableCountingJob.build(env,
                    SequenceSource.bounded(0, plan.records() - 1).withRate(150_000 + random.nextInt(150_000)), KEYS,
                    failures, sink);
            try {
                JobId id = cluster.submit(env.buildJobGraph(jobName));
                JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);

                assertThat(result.status()).as("seed %d: %s", seed, result.failureStackTrace())
                        .isEqualTo(JobStatus.FINISHED);
                assertThat(failures.thrown()).as("seed %d: injected failures", seed).isEqualTo(plan.failures());
                Map<Long, Long> finalState = CollectingSink.lastValuePerKey(sink.results(), Tuple2::f0, Tuple2::f1);
                assertThat(finalState).as("seed %d: final count per key", seed)
                        .isEqualTo(KeyedCountingJob.expectedCounts(plan.records(), KEYS));

                JobDetails details = cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS);
                assertThat(details.restarts()).as("seed %d: restarts", seed).isBetween(1, plan.failures());
                assertThat(details.recentFailures()).as("seed %d: task failures reported", seed).isNotEmpty();
                // Every (key, count) pair is emitted once per run without failures: the rest are replays.
                long replayed = sink.count() - plan.records();
                assertThat(replayed).as("seed %d: records replayed", seed).isNotNegative();
                long restoredKeys = run.restoredKeys();
                System.out.printf("seed %d: FINISHED, %d restarts, %d checkpoints completed, %d keys restored,"
                        + " %d records replayed%n", seed, details.restarts(), details.checkpoints().completed(),
                        restoredKeys, replayed);
                return new Outcome(plan, details, restoredKeys, replayed);
            } finally {
                run.release();
            }
        } finally {
            failures.release();
            sink.release();
        }
    }
}
