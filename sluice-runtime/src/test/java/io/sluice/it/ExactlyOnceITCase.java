package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.cluster.LocalCluster;
import io.sluice.config.StateBackendType;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
 * checkpoint; the final count per key must be exact ({@link InjectedFailureCountingScenario}, which
 * {@link RemoteRpcExactlyOnceITCase} and {@link NetworkDataExchangeITCase} run on clusters with RPC
 * and data exchange over TCP). Each seed runs with small state inline in the checkpoint metadata
 * (the default) and in state files (threshold 0), with keyed state on the heap and
 * in RocksDB ({@code state.backend: rocksdb} with its default, {@code state.backend.incremental: true}: RocksDB's
 * files, only the new ones uploaded, shared by later checkpoints).
 *
 * <p>The counter is a mutable accumulator ({@link MutableCountingJob}: {@code acc.n++;
 * state.update(acc)}), so a snapshot sharing values with the running task would fail the check.
 * Each run counts the keys restored from a checkpoint and the records replayed after restarts; over
 * all runs both must be positive, so a suite in which no restore happened fails.
 *
 * <p>Seeds: 12 from 20261129 (each run four times: two thresholds, two backends; 48 runs, about 40 s
 * on CI), {@code -Dsluice.it.exactlyOnceSeeds=N} for more, {@code -Dsluice.test.seed=S} for another
 * first seed.
 */
class ExactlyOnceITCase {
    private static final InjectedFailureCountingScenario.Draw DRAW =
            new InjectedFailureCountingScenario.Draw(30_000, 0, 4);
    private static final int SEEDS = Integer.getInteger("sluice.it.exactlyOnceSeeds", 12);
    private static final AtomicInteger RESTORED_FROM_CHECKPOINT = new AtomicInteger();
    private static final java.util.Map<StateBackendType, Integer> RESTORED_FROM_CHECKPOINT_BY_BACKEND =
            new java.util.concurrent.ConcurrentHashMap<>();
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
        for (StateBackendType backend : StateBackendType.values()) {
            assertThat(RESTORED_FROM_CHECKPOINT_BY_BACKEND.getOrDefault(backend, 0))
                    .as("runs that restored from a completed checkpoint with state in %s", backend).isPositive();
        }
        assertThat(RESTORED_KEYS.get()).as("keys restored from checkpoints, over all runs").isPositive();
        assertThat(REPLAYED_RECORDS.get()).as("records replayed after restarts, over all runs").isPositive();
    }

    static Stream<Arguments> seedsInlineThresholdsAndBackends() {
        return InjectedFailureCountingScenario.seedsInlineThresholdsAndBackends(20261129L, SEEDS, SEEDS);
    }

    @ParameterizedTest(name = "seed {0}, inline-state threshold {1}, {2}")
    @MethodSource("seedsInlineThresholdsAndBackends")
    void keyedCountsAreExactAfterInjectedFailures(long seed, int inlineStateThreshold, StateBackendType backend)
            throws Exception {
        InjectedFailureCountingScenario.Outcome outcome = InjectedFailureCountingScenario.run(cluster, DRAW, seed,
                inlineStateThreshold, backend, checkpoints.resolve("seed-" + seed + "-inline-" + inlineStateThreshold
                        + "-" + backend.backendName()),
                "exactly-once seed " + seed + ", inline threshold " + inlineStateThreshold + ", " + backend.backendName());
        if (outcome.restoredKeys() > 0) {
            RESTORED_FROM_CHECKPOINT_BY_BACKEND.merge(backend, 1, Integer::sum);
        }
        if (outcome.restoredKeys() > 0) {
            RESTORED_FROM_CHECKPOINT.incrementAndGet();
        }
        RESTORED_KEYS.addAndGet(outcome.restoredKeys());
        REPLAYED_RECORDS.addAndGet(outcome.replayedRecords());
    }
}
