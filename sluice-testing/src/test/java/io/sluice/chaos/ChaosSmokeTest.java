package io.sluice.chaos;

import io.sluice.chaos.ChaosInvariants.Invariant;
import io.sluice.config.StateBackendType;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The CI smoke subset of the chaos suite (the full suite is {@code ChaosSoakITCase}, profile
 * {@code chaos}): a few fixed seeds, short runs, every kind of fault (the seeds are chosen so that
 * together their plans hold each action, corrupt state files included), with default restart and
 * checkpoint-failure settings, on embedded and on ZooKeeper HA, with keyed state on the heap; and two
 * of those seeds with keyed state in RocksDB with incremental checkpoints (16: storage hanging, task
 * failures, a leadership revocation; 24: storage refusing, a task failure, a revocation and two
 * corruptions, which for RocksDB flip a byte of one of RocksDB's files private to a retained checkpoint,
 * as its table files are shared by several; a FINISHED job must also leave no shared table file), seed 24
 * also with RocksDB's changelog checkpoints. Each run prints its seed and plan.
 *
 * <p>State values are mutated in place ({@code byte[]} counters, padded above the default inline
 * threshold so that checkpoints have {@code .state} files for the corruption steps): a torn snapshot
 * or a broken restore shows up as a wrong count. Every invariant is enforced.
 */
class ChaosSmokeTest {
    static final ChaosSettings SMOKE = new ChaosSettings(2, 6_000, 3_000, 6, 2_000, ChaosPlan.all(),
            Duration.ofMillis(100), Duration.ofSeconds(60), true, 12 * 1024);

    static final Set<Invariant> ENFORCED = EnumSet.allOf(Invariant.class);

    @TempDir
    Path dir;

    private static TestingServer zooKeeper;
    /** Where the ZooKeeper server shared by the class keeps its files. */
    @TempDir
    static Path zooKeeperDir;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zooKeeper = TestingZooKeeper.start(zooKeeperDir);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zooKeeper.close();
    }

    @ParameterizedTest(name = "embedded HA, seed {0}")
    @ValueSource(longs = {1L, 16L, 24L})
    void invariantsHoldOnEmbeddedHa(long seed) throws Exception {
        ChaosSuite.runAndCheck(seed, SMOKE, new EmbeddedChaosHa(dir.resolve("ha")), dir, ENFORCED);
    }

    /** The same invariants with keyed state in RocksDB and incremental checkpoints (about 4 s and 10 s). */
    @ParameterizedTest(name = "embedded HA, RocksDB incremental, seed {0}")
    @ValueSource(longs = {16L, 24L})
    void invariantsHoldWithRocksDbIncrementalCheckpoints(long seed) throws Exception {
        ChaosSuite.runAndCheck(seed, SMOKE.withBackend(StateBackendType.ROCKSDB), new EmbeddedChaosHa(dir.resolve("ha")),
                dir, ENFORCED);
    }

    /**
     * The same invariants with RocksDB's changelog checkpoints (materialising every 3rd): seed 24's storage refusals,
     * task failure, revocation and corruptions hit checkpoints that are a materialisation plus changelog segments.
     */
    @ParameterizedTest(name = "embedded HA, RocksDB changelog checkpoints, seed {0}")
    @ValueSource(longs = {24L})
    void invariantsHoldWithRocksDbChangelogCheckpoints(long seed) throws Exception {
        ChaosSuite.runAndCheck(seed, SMOKE.withBackend(StateBackendType.ROCKSDB).withChangelog(3),
                new EmbeddedChaosHa(dir.resolve("ha")), dir, ENFORCED);
    }

    /** Revocation here expires the job manager's ZooKeeper session (job and dispatcher leadership). */
    @ParameterizedTest(name = "ZooKeeper HA, seed {0}")
    @ValueSource(longs = {18L})
    void invariantsHoldOnZooKeeperHa(long seed) throws Exception {
        ChaosSuite.runAndCheck(seed, SMOKE, new ZooKeeperChaosHa(zooKeeper.getConnectString(), "smoke-" + seed),
                dir, ENFORCED);
    }
}
