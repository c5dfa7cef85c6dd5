package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writes the checkpoints and the savepoint that {@link UpgradeCompatibilityITCase} restores, for one version, into
 * {@code src/test/resources/compat/<version>/}, with the {@code sluice.jar} just built. Run by hand, once per release
 * (its name matches no test pattern, so no build runs it):
 * {@code mvn -B verify -pl sluice-e2e -Dit.test=CompatFixtureWriter -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false
 * -Dsluice.e2e.write-compat-fixtures=<version>}. Test code only.
 */
class CompatFixtureWriter {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final long RECORDS = 20_000;
    private static final int KEYS = 8;
    private static final Pattern SAVEPOINT_DIR = Pattern.compile("written to (\\S+) \\(");

    @TempDir
    Path dir;

    /**
     * Writes the fixtures of version {@code sluice.e2e.write-compat-fixtures} into
     * {@code src/test/resources/compat/<version>/} with the {@code sluice.jar} just built. By hand, once per release.
     */
    @Test
    void writeFixtures() throws Exception {
        String version = System.getProperty("sluice.e2e.write-compat-fixtures");
        assertThat(version).as("the version to write: -Dsluice.e2e.write-compat-fixtures=<version>").isNotBlank();
        Path target = Path.of("src/test/resources/compat").resolve(version).toAbsolutePath();
        assertThat(target).as("fixtures of " + version + " are written once").doesNotExist();
        Path checkpoints = dir.resolve("checkpoints");
        try (SluiceCluster cluster = new SluiceCluster(dir, Map.of("checkpoints.dir", checkpoints.toString(),
                "checkpoints.interval", "300 ms"))) {
            String url = cluster.startLocalCluster(List.of("--task-executors", "1", "--slots", "4"), Map.of())
                    .restUrl();
            List<String> program = List.of("--records", Long.toString(RECORDS), "--keys", Integer.toString(KEYS),
                    "--rate", "500", "--output");
            String heap = cluster.submitExample(url, List.of("--parallelism", "2", "-D", "state.backend=heap", "-D",
                    "checkpoints.inline-state-threshold=0"), append(program, dir.resolve("out-heap").toString()));
            String rocks = cluster.submitExample(url, List.of("--parallelism", "2", "-D", "state.backend=rocksdb", "-D",
                    "state.backend.incremental=true"), append(program, dir.resolve("out-rocksdb").toString()));
            for (String job : List.of(heap, rocks)) {
                await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(url, job) >= 6);
            }
            CommandResult savepoint = SluiceCluster.sluice(dir, List.of("savepoint", rocks, "--cluster", url, "--dir",
                    dir.resolve("savepoints").toString()));
            assertThat(savepoint.exitCode()).as(savepoint.output()).isZero();
            Matcher m = SAVEPOINT_DIR.matcher(savepoint.output());
            assertThat(m.find()).as(savepoint.output()).isTrue();
            Path savepointDir = m.group(1).startsWith("file:") ? Path.of(java.net.URI.create(m.group(1)))
                    : Path.of(m.group(1));
            for (SluiceProcess p : cluster.processes()) {
                p.kill(); // the jobs' retained checkpoints stay, as after a crash before an upgrade
            }
            Files.createDirectories(target);
            String heapCheckpoint = copyLatestCheckpoint(checkpoints, heap, target.resolve("checkpoint-heap"));
            String rocksCheckpoint = copyLatestCheckpoint(checkpoints, rocks, target.resolve("checkpoint-rocksdb"));
            TestFiles.copyTree(savepointDir, target.resolve("savepoint-rocksdb"));
            Properties p = new Properties();
            p.setProperty("records", Long.toString(RECORDS));
            p.setProperty("keys", Integer.toString(KEYS));
            p.setProperty("heap.checkpoint", "checkpoint-heap/" + heapCheckpoint);
            p.setProperty("rocksdb.checkpoint", "checkpoint-rocksdb/" + rocksCheckpoint);
            p.setProperty("rocksdb.savepoint", "savepoint-rocksdb");
            try (Writer w = Files.newBufferedWriter(target.resolve("fixture.properties"))) {
                p.store(w, "Written by CompatFixtureWriter with the sluice.jar of " + version
                        + " on " + Instant.now() + ": the keyed counting example (--records " + RECORDS + " --keys "
                        + KEYS + ") at parallelism 2");
            }
            System.out.println("UpgradeCompatibilityITCase: wrote the fixtures of " + version + " to " + target);
        }
    }

    /** Copies the job's newest completed checkpoint and its shared files; its path relative to {@code target}. */
    private static String copyLatestCheckpoint(Path checkpoints, String job, Path target) throws IOException {
        Path jobDir = checkpoints.resolve(job);
        Path latest;
        try (Stream<Path> chk = Files.list(jobDir)) {
            latest = chk.filter(c -> c.getFileName().toString().startsWith("chk-"))
                    .filter(c -> Files.exists(c.resolve("_metadata")))
                    .max(java.util.Comparator.comparingLong(c -> Long.parseLong(c.getFileName().toString().substring(4))))
                    .orElseThrow(() -> new AssertionError("no completed checkpoint of " + job + " in " + jobDir));
        }
        TestFiles.copyTree(latest, target.resolve(job).resolve(latest.getFileName().toString()));
        if (Files.isDirectory(jobDir.resolve("shared"))) {
            TestFiles.copyTree(jobDir.resolve("shared"), target.resolve(job).resolve("shared"));
        }
        return job + "/" + latest.getFileName();
    }

    private static List<String> append(List<String> list, String last) {
        List<String> all = new ArrayList<>(list);
        all.add(last);
        return all;
    }
}
