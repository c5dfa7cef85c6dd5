package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.Reader;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoints and savepoints written by an earlier build of Sluice restore with this one (a second-day journey:
 * upgrades). {@code src/test/resources/compat/<version>/} holds what {@link CompatFixtureWriter} wrote with the
 * {@code sluice.jar} of that version: two retained checkpoints of the keyed counting example at parallelism 2, one on
 * the heap with a state file per snapshot and one on RocksDB with incremental checkpoints (its shared table files
 * beside it), and a savepoint of the RocksDB job, with {@code fixture.properties} naming them. For every version
 * there, a {@code sluice cluster} of this build restores each with {@code sluice run --restore-from} of the copy, at
 * another parallelism, the savepoint onto the other backend, and runs it to the end of its input: every key's
 * count goes on from the fixture's (its first count after the restore is above 1) to the exact total.
 *
 * <p>Each release adds its directory, written by {@link CompatFixtureWriter} with the jar just built
 * (src/test/resources/compat/README.md).
 */
class UpgradeCompatibilityITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void checkpointsAndSavepointsOfEveryEarlierVersionRestoreWithExactCounts() throws Exception {
        List<Path> versions = fixtureVersions();
        assertThat(versions).as("fixture versions under compat/").isNotEmpty();
        for (Path version : versions) {
            restoreAll(version);
        }
    }

    private void restoreAll(Path fixture) throws Exception {
        String version = fixture.getFileName().toString();
        Path copy = dir.resolve("fixture-" + version);
        TestFiles.copyTree(fixture, copy);
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(copy.resolve("fixture.properties"))) {
            p.load(in);
        }
        long records = Long.parseLong(p.getProperty("records"));
        int keys = Integer.parseInt(p.getProperty("keys"));
        Path work = dir.resolve("restored-" + version);
        try (SluiceCluster cluster = new SluiceCluster(work, Map.of("checkpoints.dir",
                work.resolve("checkpoints").toString()))) {
            try {
                String url = cluster.startLocalCluster(List.of("--task-executors", "1", "--slots", "4"), Map.of())
                        .restUrl();
                restore(cluster, url, version, "the heap job's checkpoint", copy.resolve(p.getProperty(
                        "heap.checkpoint")), List.of("--parallelism", "3", "-D", "state.backend=heap"), work, records,
                        keys);
                restore(cluster, url, version, "the RocksDB job's incremental checkpoint", copy.resolve(p.getProperty(
                        "rocksdb.checkpoint")), List.of("--parallelism", "4", "-D", "state.backend=rocksdb", "-D",
                        "state.backend.incremental=true"), work, records, keys);
                restore(cluster, url, version, "the RocksDB job's savepoint, onto the heap", copy.resolve(p.getProperty(
                        "rocksdb.savepoint")), List.of("--parallelism", "1", "-D", "state.backend=heap"), work, records,
                        keys);
            } catch (Throwable t) {
                throw new AssertionError(t + cluster.diagnostics(), t);
            }
        }
    }

    private static void restore(SluiceCluster cluster, String url, String version, String what, Path from,
            List<String> options, Path work, long records, int keys) throws Exception {
        Path out = Files.createDirectories(work).resolve("out-" + from.getFileName() + "-" + options.get(1));
        List<String> run = new ArrayList<>(List.of("--restore-from", from.toString(), "-D", "checkpoints.interval=300 ms"));
        run.addAll(options);
        String job = cluster.submitExample(url, run, List.of("--records", Long.toString(records), "--keys",
                Integer.toString(keys), "--rate", "0", "--output", out.toString()));
        await(what + " of " + version + " restored and finished").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(url, job).filter(s -> s.equals("FINISHED") || s.equals("FAILED"))
                        .isPresent());
        assertThat(Rest.jobStatus(url, job)).as(what + " of " + version + ": " + Rest.job(url, job)).contains("FINISHED");
        Map<Long, Long> firstCounts = KeyedCounts.lowest(out);
        assertThat(firstCounts).as(what + " of " + version + ": every key's first count after the restore goes on from"
                + " the fixture's").hasSize(keys).allSatisfy((key, count) -> assertThat(count).isGreaterThan(1));
        KeyedCounts.assertExact(out, records, keys);
        System.out.println("UpgradeCompatibilityITCase: " + what + " of " + version + " (" + from.getFileName()
                + ") restored with " + options + ": first counts " + firstCounts + ", exact totals of " + records
                + " records");
    }

    private static List<Path> fixtureVersions() throws IOException, URISyntaxException {
        URL readme = UpgradeCompatibilityITCase.class.getResource("/compat/README.md");
        assertThat(readme).as("compat/README.md on the test class path").isNotNull();
        try (Stream<Path> versions = Files.list(Path.of(readme.toURI()).getParent())) {
            return versions.filter(Files::isDirectory).sorted().toList();
        }
    }

}
