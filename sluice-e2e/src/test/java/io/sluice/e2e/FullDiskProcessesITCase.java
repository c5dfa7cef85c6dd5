package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint disk fills up, then frees (a second-day journey), on a real file system that runs out of space:
 * {@code sluice cluster} runs in a mount namespace of its own ({@code unshare --mount}) whose checkpoint directory is
 * a tmpfs of {@value #DISK_SIZE}, which the test fills with a file of its own (through {@code /proc/<pid>/root}) until
 * the kernel answers "No space left on device", and later deletes. Two jobs run on it, one on the heap (every
 * snapshot a state file of its own) and one on RocksDB with incremental checkpoints (its working directory on the
 * machine's disk, its uploads copied onto the full one). While the disk is full, every checkpoint fails; each job
 * stays {@code RUNNING} without a restart, and its status says since when checkpoints fail and why. Once the file
 * is deleted, checkpoints complete again by themselves. Both jobs end with exact counts, and no file is left on the
 * disk: no half-written temporary file of a write the full disk cut off.
 *
 * <p>The second test puts RocksDB's working directory on the small disk instead, with task-local recovery on (its
 * local copies are beside that directory, on the same disk): its flush fails, the job restarts (twice while the test
 * holds the disk full, each restart's cause in its status) and, once the disk frees, runs on to exact counts.
 */
class FullDiskProcessesITCase {
    private static final String DISK_SIZE = "24m";
    private static final int KEYS = 64;
    /** 20 s of input at {@code RATE}: the disk is full and freed within its first half. */
    private static final long RECORDS = 20_000;
    private static final int RATE = 1_000;

    @TempDir
    Path dir;

    @BeforeAll
    static void mountNamespacesAvailable() throws Exception {
        String why = probe();
        assumeTrue(why == null, () -> "skipped: " + why);
    }

    @Test
    void checkpointsFailWhileTheDiskIsFullAndResumeOnceItFreesWithoutARestartAndWithExactCounts() throws Exception {
        Path mountPoint = Files.createDirectories(dir.resolve("checkpoint-disk"));
        Map<String, String> common = Map.of("checkpoints.dir", mountPoint.resolve("checkpoints").toString(),
                "checkpoints.interval", "300 ms");
        try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
            try {
                run(cluster, mountPoint);
            } catch (Throwable t) {
                throw new AssertionError(t + cluster.diagnostics(), t);
            }
        }
    }

    private void run(SluiceCluster cluster, Path mountPoint) throws Exception {
        SluiceProcess process = startOnItsOwnDisk(cluster, mountPoint, 2, dir.resolve("rocksdb"));
        String url = process.restUrl();
        Path disk = asSeenBy(process, mountPoint);

        Path heapOutput = dir.resolve("counts-heap");
        Path rocksOutput = dir.resolve("counts-rocksdb");
        String heapJob = cluster.submitExample(url, List.of("--parallelism", "1", "-D", "state.backend=heap", "-D",
                "checkpoints.inline-state-threshold=0"), program(heapOutput));
        String rocksJob = cluster.submitExample(url, List.of("--parallelism", "1", "-D", "state.backend=rocksdb", "-D",
                "state.backend.incremental=true"), program(rocksOutput));
        List<String> jobs = List.of(heapJob, rocksJob);
        for (String job : jobs) {
            await("two checkpoints of " + job).atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(url, job)
                    .filter("RUNNING"::equals).isPresent() && Rest.completedCheckpoints(url, job) >= 2);
        }

        Path filler = disk.resolve("filler");
        long filled = fillUp(filler);
        long[] completedWhenFull = jobs.stream().mapToLong(job -> Rest.completedCheckpoints(url, job)).toArray();
        System.out.println("FullDiskProcessesITCase: filled the checkpoint disk with " + filled + " bytes; completed"
                + " checkpoints then: " + List.of(completedWhenFull[0], completedWhenFull[1]));
        for (String job : jobs) {
            await("checkpoints of " + job + " failing on the full disk").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> checkpoints(url, job).path("lastFailure")
                            .asText("").contains("No space left on device")
                            && checkpoints(url, job).path("failingSinceMillis").isNumber());
        }
        // Held full for a while: a few more checkpoints fail, and nothing restarts.
        long failedThen = checkpoints(url, heapJob).path("failed").asLong();
        await("more failed checkpoints while the disk is full").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> checkpoints(url, heapJob).path("failed").asLong()
                        >= failedThen + 3);
        for (int i = 0; i < jobs.size(); i++) {
            String job = jobs.get(i);
            JsonNode status = Rest.job(url, job).orElseThrow();
            assertThat(status.path("status").asText()).as(job + " while the disk is full").isEqualTo("RUNNING");
            assertThat(status.path("restarts").path("count").asInt()).as(job + "'s restarts").isZero();
            assertThat(status.path("checkpoints").path("completed").asLong()).as(job + "'s completed checkpoints")
                    .isLessThanOrEqualTo(completedWhenFull[i] + 1); // one may have been written before the disk filled
            System.out.println("FullDiskProcessesITCase: " + job + " while the disk is full: " + status.path(
                    "checkpoints"));
        }

        Files.delete(filler);
        for (int i = 0; i < jobs.size(); i++) {
            String job = jobs.get(i);
            long before = checkpoints(url, job).path("completed").asLong();
            await("checkpoints of " + job + " completing again once the disk frees").atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> checkpoints(url, job).path("completed").asLong()
                            > before && checkpoints(url, job).path("failingSinceMillis").isNull());
        }
        for (String job : jobs) {
            await(job + " finished").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> Rest.jobStatus(url, job).filter("FINISHED"::equals).isPresent());
            assertThat(Rest.job(url, job).orElseThrow().path("restarts").path("count").asInt())
                    .as(job + "'s restarts").isZero();
        }
        KeyedCounts.assertExact(heapOutput, RECORDS, KEYS);
        KeyedCounts.assertExact(rocksOutput, RECORDS, KEYS);
        await("the finished jobs' checkpoints deleted, and no unfinished write left").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200)).untilAsserted(() -> assertThat(filesUnder(disk)).isEmpty());
    }

    /**
     * RocksDB's own working directory runs full: its flush at a checkpoint fails, and with it the job's writes. The
     * job restarts at its restart strategy's pace while the disk stays full, each restart's cause in its status;
     * once the disk frees, a restart succeeds and the job ends with exact counts.
     */
    @Test
    void aFullRocksDbDirectoryRestartsTheJobUntilItFreesWithExactCounts() throws Exception {
        Path mountPoint = Files.createDirectories(dir.resolve("rocksdb-disk"));
        Map<String, String> common = Map.of("checkpoints.dir", dir.resolve("checkpoints").toString(),
                "checkpoints.interval", "300 ms");
        try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
            try {
                SluiceProcess process = startOnItsOwnDisk(cluster, mountPoint, 1, mountPoint.resolve("rocksdb"));
                String url = process.restUrl();
                Path disk = asSeenBy(process, mountPoint);
                Path output = dir.resolve("counts");
                String job = cluster.submitExample(url, List.of("--parallelism", "1", "-D", "state.backend=rocksdb",
                        "-D", "state.backend.incremental=true", "-D", "state.backend.local-recovery=true"),
                        program(output));
                await("two checkpoints").atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(url, job)
                        .filter("RUNNING"::equals).isPresent() && Rest.completedCheckpoints(url, job) >= 2);

                Path filler = disk.resolve("filler");
                long filled = fillUp(filler);
                // Held full for two restarts: the job keeps trying at its restart strategy's pace, not failing.
                await("two restarts caused by the full disk").atMost(Duration.ofSeconds(60))
                        .pollInterval(Duration.ofMillis(100)).until(() -> restartsForNoSpace(url, job) >= 2);
                assertThat(Rest.jobStatus(url, job)).as("while the disk is full").isNotEqualTo(Optional.of("FAILED"));
                JsonNode whileFull = Rest.job(url, job).orElseThrow();
                System.out.println("FullDiskProcessesITCase: filled RocksDB's disk with " + filled + " bytes; the"
                        + " job's restarts then: " + whileFull.path("restarts"));

                Files.delete(filler);
                await(job + " finished").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                        .until(() -> Rest.jobStatus(url, job).filter("FINISHED"::equals).isPresent());
                KeyedCounts.assertExact(output, RECORDS, KEYS);
                List<String> restores = process.log().lines().filter(l -> l.contains("restored RocksDB's files of"))
                        .map(l -> l.substring(l.indexOf("restored RocksDB's files of"))).toList();
                assertThat(restores).as("the restarts' restores, with task-local recovery on the same full disk")
                        .isNotEmpty();
                System.out.println("FullDiskProcessesITCase: after the disk freed the job finished with exact counts;"
                        + " restarts: " + Rest.job(url, job).orElseThrow().path("restarts").path("count")
                        + "; restores: " + restores);
            } catch (Throwable t) {
                throw new AssertionError(t + cluster.diagnostics(), t);
            }
        }
    }

    /** How many of the job's recent restarts a full disk caused. */
    private static long restartsForNoSpace(String url, String job) {
        JsonNode recent = Rest.job(url, job).orElseThrow().path("restarts").path("recent");
        long n = 0;
        for (JsonNode restart : recent) {
            if (restart.path("cause").asText("").contains("No space left on device")) {
                n++;
            }
        }
        return n;
    }

    private static List<String> program(Path output) {
        return List.of("--records", Long.toString(RECORDS), "--keys", Integer.toString(KEYS), "--rate",
                Integer.toString(RATE), "--output", output.toString());
    }

    /**
     * {@code sluice cluster} with one task executor of {@code slots} slots in a mount namespace of its own, a tmpfs of
     * {@value #DISK_SIZE} at {@code mountPoint}, and RocksDB's working directory at {@code rocksDbDir}.
     */
    private static SluiceProcess startOnItsOwnDisk(SluiceCluster cluster, Path mountPoint, int slots, Path rocksDbDir)
            throws IOException {
        return cluster.startLocalCluster(onItsOwnDisk(mountPoint), List.of(), List.of("--task-executors", "1",
                "--slots", Integer.toString(slots)), Map.of("state.backend.rocksdb.local-dir", rocksDbDir.toString()));
    }

    /** The tmpfs at {@code mountPoint} as {@code process} sees it (it is mounted in that process's namespace only). */
    private static Path asSeenBy(SluiceProcess process, Path mountPoint) {
        return Path.of("/proc", Long.toString(process.process().pid()), "root").resolve(mountPoint.toString()
                .substring(1));
    }

    /** Runs a command in a mount namespace of its own, with a tmpfs of {@value #DISK_SIZE} at {@code mountPoint}. */
    private static Host onItsOwnDisk(Path mountPoint) {
        return new Host("127.0.0.1", command -> {
            List<String> wrapped = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                    "mount -t tmpfs -o size=" + DISK_SIZE + " sluice-test-disk \"$0\" && exec \"$@\"",
                    mountPoint.toString()));
            wrapped.addAll(command);
            return wrapped;
        });
    }

    /**
     * Writes {@code filler} until the file system has no space left, in ever smaller chunks so that no page stays
     * free; the bytes written. Fails, rather than fill the machine's disk, if that takes more than twice
     * {@value #DISK_SIZE} (the tmpfs was not where the test thought).
     */
    private static long fillUp(Path filler) throws IOException {
        long limit = 2 * 24L * 1024 * 1024;
        long written = 0;
        try (OutputStream out = Files.newOutputStream(filler)) {
            for (int chunk : new int[] {64 * 1024, 4 * 1024, 256, 1}) {
                try {
                    while (written < limit) {
                        out.write(new byte[chunk]);
                        out.flush();
                        written += chunk;
                    }
                } catch (IOException e) {
                    assertThat(e).as("the disk is full").hasMessageContaining("No space left on device");
                }
            }
        }
        assertThat(written).as("bytes written to fill the " + DISK_SIZE + " disk").isLessThan(limit);
        return written;
    }

    private static JsonNode checkpoints(String url, String job) {
        return Rest.job(url, job).map(j -> j.path("checkpoints")).orElseThrow();
    }

    private static List<String> filesUnder(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).map(root::relativize).map(Path::toString).toList();
        }
    }

    /** Why a process cannot mount a tmpfs in a mount namespace of its own here, or null when it can. */
    private static String probe() throws Exception {
        Path point = Files.createTempDirectory("sluice-mount-probe");
        try {
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c",
                    "mount -t tmpfs -o size=1m sluice-probe \"$0\"", point.toString()).redirectErrorStream(true)
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unshare --mount did not end within 30 s";
            }
            String output = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            return p.exitValue() == 0 ? null : "a tmpfs cannot be mounted in a mount namespace here (" + output.strip()
                    + ")";
        } catch (IOException e) {
            return "unshare is not available here (" + e.getMessage() + ")";
        } finally {
            Files.deleteIfExists(point);
        }
    }
}
