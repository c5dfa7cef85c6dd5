package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.Cli.Result;
import io.sluice.cli.common.ExitCodes;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice cluster} as its own process (the built {@code sluice.jar}) and the client commands
 * against it, in this JVM through {@link SluiceCli#commandLine()}: the example jar run attached and
 * detached, list, status (also watched), checkpoints, cancel, every exit code of the client
 * commands, and a cluster stopped with SIGTERM (exit 0) and started again on the same HA directory
 * running the job again from its checkpoint; then, the job canceled, {@code run --restore-from
 * latest:<jobId>} continuing its counts, and a missing checkpoint failing the run with exit 2.
 */
class SluiceClusterCliITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final int KEYS = 4;

    @TempDir
    Path dir;

    private final List<ClusterProcess> clusters = new ArrayList<>();

    @AfterEach
    void stopProcesses() throws Exception {
        for (ClusterProcess c : clusters) {
            c.close();
        }
    }

    private ClusterProcess startCluster(int n) throws IOException {
        ClusterProcess cluster = ClusterProcess.start(dir, "cluster-" + n);
        clusters.add(cluster);
        return cluster;
    }

    private static Result cli(String... args) {
        return Cli.run(args);
    }

    private JsonNode job(ClusterProcess c, String jobId) throws IOException {
        Result r = cli("status", jobId, "--cluster", c.url(), "--output", "json");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(0);
        return r.json();
    }

    /** Every {@code key,count} line of the keyed counting job's output, as key -> all counts seen. */
    private Map<String, List<Long>> counts(Path output) throws IOException {
        Map<String, List<Long>> all = new HashMap<>();
        if (!Files.isDirectory(output)) {
            return all;
        }
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.toList()) {
                for (String line : Files.readAllLines(part)) {
                    int comma = line.indexOf(',');
                    if (comma > 0 && line.indexOf(',', comma + 1) < 0 && !line.substring(comma + 1).isEmpty()) {
                        all.computeIfAbsent(line.substring(0, comma), k -> new ArrayList<>())
                                .add(Long.parseLong(line.substring(comma + 1)));
                    }
                }
            }
        }
        return all;
    }

    /** The ids of the jars the cluster stores ({@code sluice jars --output json}). */
    private static List<String> storedJars(String url) throws IOException {
        Result r = cli("jars", "--cluster", url, "--output", "json");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        List<String> ids = new ArrayList<>();
        r.json().path("jars").forEach(j -> ids.add(j.path("id").asText()));
        return ids;
    }

    private static long max(Map<String, List<Long>> counts) {
        return counts.values().stream().flatMap(List::stream).mapToLong(Long::longValue).max().orElse(0);
    }

    @Test
    void theCliRunsWatchesAndCancelsJobsOnAClusterProcessThatResumesItsJobAfterARestart() throws Exception {
        String examples = ClusterProcess.requiredFile("sluice.examples.jar").toString();
        ClusterProcess cluster = startCluster(1);
        String url = cluster.url();

        // Attached run of a bounded job: live progress lines, exit 0 when it FINISHED.
        Result attached = cli("run", examples, "--cluster", url, "--parallelism", "2", "--poll-interval", "100 ms",
                "--", "--records", "2000", "--keys", "8", "--rate", "0");
        assertThat(attached.exitCode()).as(attached.err()).isEqualTo(ExitCodes.OK);
        assertThat(attached.out()).contains("submitted from sluice-examples.jar")
                .as("the last progress line counts every record the source read")
                .containsPattern("FINISHED +source records out 2,000 ");

        // A program whose main throws: the job is rejected with the user's exception, exit 2.
        Result bad = cli("run", examples, "--cluster", url, "--", "--no-such-argument", "1");
        assertThat(bad.exitCode()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(bad.err()).contains("threw").contains("--no-such-argument");

        // Word count, by explicit --class, attached: FINISHED and the file counted.
        Path text = Files.writeString(dir.resolve("text.txt"), "to be or not to be\n");
        Result wordCount = cli("run", examples, "--cluster", url, "--class", "io.sluice.examples.jobs.WordCount",
                "--poll-interval", "100 ms", "--", "--input", text.toString(), "--output", dir.resolve("wc").toString());
        assertThat(wordCount.exitCode()).as(wordCount.err()).isEqualTo(ExitCodes.OK);

        // A job that fails while it runs (its input file does not exist; no restarts): attached run exits 2.
        Result failing = cli("run", examples, "--cluster", url, "--class", "io.sluice.examples.jobs.WordCount",
                "-D", "restart-strategy=none", "--poll-interval", "100 ms",
                "--", "--input", dir.resolve("no-such-file.txt").toString(), "--output", dir.resolve("wc2").toString());
        assertThat(failing.exitCode()).as(failing.out() + failing.err()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(failing.out()).contains("FAILED").contains("no-such-file.txt");

        // A long-running job with checkpoints, detached.
        Path output = dir.resolve("counts");
        Result detached = cli("run", examples, "--cluster", url, "--detached", "--output", "json",
                "-D", "checkpoints.interval=200 ms", "-D", "checkpoints.dir=" + dir.resolve("checkpoints"),
                "--", "--records", "0", "--keys", Integer.toString(KEYS), "--rate", "200", "--output", output.toString());
        assertThat(detached.exitCode()).as(detached.err()).isEqualTo(ExitCodes.OK);
        String jobId = detached.json().path("jobId").asText();

        // Five runs of the same bytes: the cluster stores one copy of the jar, not one per run.
        assertThat(storedJars(url)).as("jars stored after five runs of one jar").hasSize(1);
        Path other = dir.resolve("other.jar");
        try (java.util.jar.JarOutputStream jar = new java.util.jar.JarOutputStream(Files.newOutputStream(other))) {
            jar.putNextEntry(new java.util.jar.JarEntry("note.txt"));
            jar.write("not the examples".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        Result otherRun = cli("run", other.toString(), "--cluster", url, "--class", "no.such.Main");
        assertThat(otherRun.exitCode()).as(otherRun.err()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(storedJars(url)).as("a jar of other bytes is uploaded").hasSize(2);

        Result list = cli("list", "--cluster", url);
        assertThat(list.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(list.out()).contains(jobId).contains("keyed counting over " + KEYS + " keys");

        await().atMost(TIMEOUT).until(() -> job(cluster, jobId).path("checkpoints").path("completed").asLong() >= 3);
        Result watch = cli("status", jobId, "--watch", "--interval", "100 ms", "--timeout", "1 s", "--cluster", url);
        assertThat(watch.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(watch.out()).contains("RUNNING").contains("keeps running on the cluster");
        Result status = cli("status", jobId, "--cluster", url);
        assertThat(status.out()).contains("status       RUNNING").contains("count per key");
        Result checkpoints = cli("checkpoints", jobId, "--cluster", url);
        assertThat(checkpoints.exitCode()).isEqualTo(ExitCodes.OK);
        assertThat(checkpoints.out()).contains("checkpoint(s) completed");

        // Exit codes of mistakes.
        assertThat(cli("status", "not-a-job", "--cluster", url).exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(cli("status", "0123456789abcdef0123456789abcdef", "--cluster", url).exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cli("cancel", "0123456789abcdef0123456789abcdef", "--cluster", url).exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cli("run", dir.resolve("missing.jar").toString(), "--cluster", url).exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cli("list", "--cluster", url, "--no-such-option").exitCode()).isEqualTo(ExitCodes.USAGE);
        String nobody = "http://127.0.0.1:" + freePort();
        Result unreachable = cli("list", "--cluster", nobody);
        assertThat(unreachable.exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);
        assertThat(unreachable.err()).contains(nobody).contains("sluice cluster");

        // SIGTERM: jobs suspended, HA data kept, exit 0.
        long countedBefore = max(counts(output));
        cluster.process().destroy();
        assertThat(cluster.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(cluster.process().exitValue()).as(cluster.output()).isEqualTo(0);
        assertThat(cluster.output()).contains("Sluice cluster stopped.");
        assertThat(cli("status", jobId, "--cluster", url).exitCode()).isEqualTo(ExitCodes.UNAVAILABLE);

        // Started again on the same HA directory: the job (with its jar) RUNNING again, from its checkpoint.
        ClusterProcess second = startCluster(2);
        await().atMost(TIMEOUT).until(() -> "RUNNING".equals(job(second, jobId).path("status").asText())
                && max(counts(output)) > countedBefore);
        Map<String, List<Long>> counts = counts(output);
        assertThat(counts).hasSize(KEYS);
        for (Map.Entry<String, List<Long>> key : counts.entrySet()) {
            assertThat(key.getValue().stream().filter(c -> c == 1).count())
                    .as("key %s counted from 1 only once: the restarted job resumed its state", key.getKey())
                    .isEqualTo(1);
        }

        Result cancel = cli("cancel", jobId, "--cluster", second.url());
        assertThat(cancel.exitCode()).as(cancel.err()).isEqualTo(ExitCodes.OK);
        Result ended = cli("status", jobId, "--watch", "--interval", "100 ms", "--timeout", "60 s", "--cluster", second.url());
        assertThat(ended.exitCode()).as("a watched job that ends CANCELED").isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(ended.out()).contains("CANCELED");

        restartFromTheCanceledJobsLatestCheckpoint(second, examples, jobId);

        second.process().destroy();
        assertThat(second.process().waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(second.process().exitValue()).isEqualTo(0);
    }

    /**
     * {@code sluice run --restore-from latest:<jobId>} after the job was canceled (its checkpoints are
     * retained on cancel by default): the new job counts on from the checkpoint, not from 1; a
     * checkpoint that does not exist fails the run with exit 2 and the reason; conflicting
     * {@code --restore-from} and {@code -D checkpoints.restore-from} are a usage error.
     */
    private void restartFromTheCanceledJobsLatestCheckpoint(ClusterProcess cluster, String examples, String canceledJob)
            throws Exception {
        String url = cluster.url();
        Path checkpoints = dir.resolve("checkpoints");
        Path output = dir.resolve("counts-restored");
        Result restored = cli("run", examples, "--cluster", url, "--detached", "--output", "json",
                "--restore-from", "latest:" + canceledJob,
                "-D", "checkpoints.interval=200 ms", "-D", "checkpoints.dir=" + checkpoints,
                "--", "--records", "0", "--keys", Integer.toString(KEYS), "--rate", "200", "--output", output.toString());
        assertThat(restored.exitCode()).as(restored.err()).isEqualTo(ExitCodes.OK);
        String jobId = restored.json().path("jobId").asText();
        assertThat(jobId).isNotEqualTo(canceledJob);

        await().atMost(TIMEOUT).until(() -> "RUNNING".equals(job(cluster, jobId).path("status").asText())
                && counts(output).size() == KEYS);
        Map<String, List<Long>> counts = counts(output);
        for (Map.Entry<String, List<Long>> key : counts.entrySet()) {
            assertThat(key.getValue())
                    .as("key %s continues from the canceled job's checkpoint, never counted from 1 again", key.getKey())
                    .allMatch(c -> c > 1);
        }
        Result history = cli("checkpoints", jobId, "--cluster", url, "--output", "json");
        assertThat(history.exitCode()).as(history.err()).isEqualTo(ExitCodes.OK);
        assertThat(history.json().path("restoredId").isNumber()).as(history.out()).isTrue();
        assertThat(cli("cancel", jobId, "--cluster", url).exitCode()).isEqualTo(ExitCodes.OK);

        // A checkpoint that does not exist: the job fails at start, an attached run exits 2 saying why.
        String missing = checkpoints.resolve(canceledJob).resolve("chk-999999").toString();
        Result bad = cli("run", examples, "--cluster", url, "--restore-from", missing, "--poll-interval", "100 ms",
                "-D", "checkpoints.dir=" + checkpoints, "--", "--records", "0", "--keys", "2", "--rate", "10",
                "--output", dir.resolve("never").toString());
        assertThat(bad.exitCode()).as(bad.out() + bad.err()).isEqualTo(ExitCodes.JOB_FAILED);
        assertThat(bad.out() + bad.err()).contains("FAILED").contains("chk-999999").contains("there is no checkpoint");

        Result conflicting = cli("run", examples, "--cluster", url, "--restore-from", "latest:" + canceledJob,
                "-D", "checkpoints.restore-from=" + missing);
        assertThat(conflicting.exitCode()).as(conflicting.err()).isEqualTo(ExitCodes.USAGE);
        assertThat(conflicting.err()).contains("--restore-from");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
