package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobId;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real process restart: a JVM running a job with embedded HA is killed ({@code kill -9}, no
 * clean-up); a new JVM started on the same HA directory resumes the job from its latest
 * checkpoint, and the job ends with exact counts.
 */
class ProcessRestartITCase {
    // 10 s of input at 20,000 records/s: the job must still run when two checkpoints are in (at load 20-30 in CI, 3 s
    // of input ended before the first process showed two and the wait timed out)
    private static final long RECORDS = 200_000;
    private static final Pattern LINE = Pattern.compile("Tuple2\\[f0=(\\d+), f1=(\\d+)]");

    @TempDir
    Path dir;

    private Process start(String mode, JobId id) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                EmbeddedJobProcess.class.getName(), mode, dir.resolve("ha").toString(), dir.resolve("cp").toString(),
                dir.resolve("out").toString(), id.value(), Long.toString(RECORDS), "20000");
        pb.redirectErrorStream(true);
        pb.redirectOutput(dir.resolve(mode + ".log").toFile());
        return pb.start();
    }

    @Test
    void aKilledProcessIsResumedByTheNextOneOnTheSameDirectory() throws Exception {
        JobId id = JobId.generate();
        Process first = start("submit", id);
        try {
            Path pointers = dir.resolve("ha").resolve("checkpoints").resolve(id.value());
            await().atMost(Duration.ofSeconds(60)).until(() -> countFiles(pointers) >= 2);
        } finally {
            first.destroyForcibly();
            first.waitFor(30, TimeUnit.SECONDS);
        }
        assertThat(Files.exists(dir.resolve("ha").resolve("jobresults").resolve(id.value())))
                .as("the job must not have ended before the kill").isFalse();

        long linesBefore = countLines(dir.resolve("out"));
        Process second = start("recover", id);
        assertThat(second.waitFor(3, TimeUnit.MINUTES)).as("the second process ends").isTrue();
        assertThat(second.exitValue()).as(Files.readString(dir.resolve("recover.log"))).isZero();

        // Resumed from a checkpoint, not from the beginning: the second process emitted fewer records than the job has.
        long emittedBySecond = countLines(dir.resolve("out")) - linesBefore;
        assertThat(emittedBySecond).isPositive().isLessThan(RECORDS);
        assertThat(lastCountPerKey(dir.resolve("out")))
                .isEqualTo(KeyedCountingJob.expectedCounts(RECORDS, EmbeddedJobProcess.KEYS));
        assertThat(Files.exists(dir.resolve("ha").resolve("jobresults").resolve(id.value()))).isTrue();
        assertThat(Files.exists(dir.resolve("ha").resolve("jobgraphs").resolve(id.value()))).isFalse();
    }

    private static long countLines(Path out) throws IOException {
        if (!Files.isDirectory(out)) {
            return 0;
        }
        long n = 0;
        try (Stream<Path> parts = Files.list(out)) {
            for (Path part : parts.toList()) {
                n += Files.readAllLines(part).size();
            }
        }
        return n;
    }

    private static long countFiles(Path d) throws IOException {
        if (!Files.isDirectory(d)) {
            return 0;
        }
        try (Stream<Path> s = Files.list(d)) {
            return s.filter(p -> p.getFileName().toString().matches("\\d+")).count();
        }
    }

    /** The last (key, count) line per key; a line cut by the kill does not match and is skipped. */
    private static Map<Long, Long> lastCountPerKey(Path out) throws IOException {
        Map<Long, Long> last = new HashMap<>();
        try (Stream<Path> parts = Files.list(out)) {
            for (Path part : parts.sorted().toList()) {
                List<String> lines = Files.readAllLines(part);
                for (String line : lines) {
                    Matcher m = LINE.matcher(line);
                    if (m.matches()) {
                        last.put(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)));
                    }
                }
            }
        }
        return last;
    }
}
