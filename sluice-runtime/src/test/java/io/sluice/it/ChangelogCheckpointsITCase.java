package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

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
 * The exactly-once scenario of {@link ExactlyOnceITCase} with RocksDB's changelog checkpoints
 * ({@code state.backend.rocksdb.changelog.materialize-every: 3}): two of every three checkpoints upload only the
 * changelog of the writes since the one before, and every restart after an injected failure restores by replaying
 * it onto the last materialisation. The final count per key must be exact. Over all runs, changelog segments must
 * have been uploaded and read back by restores, so a suite in which no changelog checkpoint was restored fails.
 *
 * <p>Seeds: 6 from 20261207, {@code -Dsluice.it.changelogSeeds=N} for more, {@code -Dsluice.test.seed=S} for another
 * first seed.
 */
class ChangelogCheckpointsITCase {
    private static final InjectedFailureCountingScenario.Draw DRAW =
            new InjectedFailureCountingScenario.Draw(30_000, 0, 4);
    private static final int SEEDS = Integer.getInteger("sluice.it.changelogSeeds", 6);
    private static final AtomicInteger SEGMENTS_WRITTEN = new AtomicInteger();
    private static final AtomicInteger SEGMENTS_READ = new AtomicInteger();
    private static final AtomicLong RESTORED_KEYS = new AtomicLong();
    private static LocalCluster cluster;

    @TempDir
    static Path dir;

    @BeforeAll
    static void startCluster() {
        cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(2)
                .configuration(new Configuration()
                        .setString("state.backend.rocksdb.changelog.materialize-every", "3")
                        .setString("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString()))
                .blobStoreDecorator(store -> new ForwardingBlobStore(store) {
                    @Override
                    public void put(String path, byte[] data) {
                        count(path, SEGMENTS_WRITTEN);
                        super.put(path, data);
                    }

                    @Override
                    public void put(String path, BlobContent content) {
                        count(path, SEGMENTS_WRITTEN);
                        super.put(path, content);
                    }

                    @Override
                    public byte[] get(String path) {
                        count(path, SEGMENTS_READ);
                        return super.get(path);
                    }

                    @Override
                    public InputStream openRead(String path) {
                        count(path, SEGMENTS_READ);
                        return super.openRead(path);
                    }

                    @Override
                    public java.util.Optional<Path> localFile(String path) {
                        count(path, SEGMENTS_READ);
                        return super.localFile(path);
                    }
                })
                .build();
    }

    private static void count(String path, AtomicInteger counter) {
        if (path.contains("changelog-")) {
            counter.incrementAndGet();
        }
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
        System.out.printf("changelog segments uploaded %d, read by restores %d; keys restored %d%n",
                SEGMENTS_WRITTEN.get(), SEGMENTS_READ.get(), RESTORED_KEYS.get());
        assertThat(SEGMENTS_WRITTEN.get()).as("changelog segments uploaded, over all runs").isPositive();
        assertThat(SEGMENTS_READ.get()).as("changelog segments read by restores, over all runs").isPositive();
        assertThat(RESTORED_KEYS.get()).as("keys restored from checkpoints, over all runs").isPositive();
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
    }
}
