package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.Cli.Result;
import io.sluice.cli.common.ExitCodes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice checkpoints delete}, {@code sluice jars} and {@code sluice jars delete} against a
 * {@code sluice cluster} process (the built {@code sluice.jar}), in this JVM through
 * {@link SluiceCli#commandLine()}: refused without {@code --yes} and while the job runs, the files of
 * the deleted checkpoints and jar counted on disk afterwards; and the exit codes of mistakes.
 */
class RetentionCliITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;
    private ClusterProcess cluster;
    private int started;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private String startCluster(String... extraArgs) throws IOException {
        cluster = ClusterProcess.start(dir, "cluster-" + ++started, extraArgs);
        return cluster.url();
    }

    private static Result cli(String... args) {
        return Cli.run(args);
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        if (!Files.exists(root)) {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }

    private JsonNode status(String url, String jobId) throws IOException {
        Result r = cli("status", jobId, "--cluster", url, "--output", "json");
        assertThat(r.exitCode()).as(r.err()).isEqualTo(ExitCodes.OK);
        return r.json();
    }

    @Test
    void checkpointsAndJarsAreDeletedFromTheCommandLineOnlyOnceTheJobHasEnded() throws Exception {
        String examples = ClusterProcess.requiredFile("sluice.examples.jar").toString();
        String url = startCluster();
        Path checkpoints = dir.resolve("checkpoints");
        Result run = cli("run", examples, "--cluster", url, "--detached", "--output", "json",
                "-D", "checkpoints.interval=200 ms", "-D", "checkpoints.dir=" + checkpoints,
                "--", "--records", "0", "--keys", "4", "--rate", "200", "--output", dir.resolve("counts").toString());
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
        String jobId = run.json().path("jobId").asText();
        await().atMost(TIMEOUT).until(() -> status(url, jobId).path("checkpoints").path("completed").asLong() >= 3);

        Result jars = cli("jars", "--cluster", url);
        assertThat(jars.exitCode()).as(jars.err()).isEqualTo(ExitCodes.OK);
        assertThat(jars.out()).contains("sluice-examples.jar");
        Result jarsJson = cli("jars", "--cluster", url, "--output", "json");
        String jarId = jarsJson.json().path("jars").get(0).path("id").asText();
        assertThat(jars.out()).contains(jarId);

        // Not confirmed (no terminal here): refused, nothing deleted.
        Result unconfirmed = cli("checkpoints", "delete", jobId, "--cluster", url);
        assertThat(unconfirmed.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(unconfirmed.err()).startsWith("sluice checkpoints delete: ").contains("--yes");
        // The job runs: refused by the cluster.
        Result running = cli("checkpoints", "delete", jobId, "--yes", "--cluster", url);
        assertThat(running.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(running.err()).contains("RUNNING").contains("Cancel it first");
        Result jarInUse = cli("jars", "delete", jarId, "--cluster", url);
        assertThat(jarInUse.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(jarInUse.err()).contains(jobId);
        assertThat(filesUnder(checkpoints.resolve(jobId))).isNotEmpty();

        assertThat(cli("cancel", jobId, "--cluster", url).exitCode()).isEqualTo(ExitCodes.OK);
        await().atMost(TIMEOUT).until(() -> status(url, jobId).path("status").asText().equals("CANCELED"));
        assertThat(filesUnder(checkpoints.resolve(jobId))).as("kept on cancel by default").isNotEmpty();

        Result deleted = cli("checkpoints", "delete", jobId, "--yes", "--cluster", url);
        assertThat(deleted.exitCode()).as(deleted.err()).isEqualTo(ExitCodes.OK);
        assertThat(deleted.out()).contains("Deleted").contains("checkpoint(s) of job " + jobId);
        assertThat(filesUnder(checkpoints.resolve(jobId))).as("no file of the deleted checkpoints").isEmpty();
        assertThat(filesUnder(dir.resolve("ha")).stream().filter(p -> p.toString().contains(jobId))
                .filter(p -> !p.getParent().getFileName().toString().equals("jobresults")))
                .as("no HA pointer, counter, graph or jar of the job").isEmpty();

        Result jarDeleted = cli("jars", "delete", jarId, "--cluster", url);
        assertThat(jarDeleted.exitCode()).as(jarDeleted.err()).isEqualTo(ExitCodes.OK);
        assertThat(jarDeleted.out()).contains("Deleted the jar " + jarId);
        assertThat(filesUnder(dir.resolve("jars"))).as("no file of the deleted jar").isEmpty();
        assertThat(cli("jars", "--cluster", url).out()).contains("No jars are stored.");

        // Mistakes.
        assertThat(cli("jars", "delete", jarId, "--cluster", url).exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cli("jars", "delete", "not-a-jar", "--cluster", url).exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(cli("checkpoints", "delete", "not-a-job", "--yes", "--cluster", url).exitCode())
                .isEqualTo(ExitCodes.USAGE);
        assertThat(cli("checkpoints", "delete", "0123456789abcdef0123456789abcdef", "--yes", "--cluster", url)
                .exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cli("checkpoints", "--cluster", url).exitCode()).as("no job id").isEqualTo(ExitCodes.USAGE);
        assertThat(cli("checkpoints", jobId, "--cluster", url).exitCode()).as("still shows the ended job")
                .isEqualTo(ExitCodes.OK);
    }

    /**
     * The cluster process is killed while a job from an uploaded jar runs and started again on the same
     * HA and jar directories: the jar is listed under its uploaded name, deleting it is refused while
     * the recovered job runs (naming it), and with {@code rest.jars.delete-with-last-job} it goes, with
     * every file of it, once the recovered job ends.
     */
    @Test
    void anUploadedJarKeepsItsNameAndItsRecoveredJobAcrossARestartOfTheCluster() throws Exception {
        String examples = ClusterProcess.requiredFile("sluice.examples.jar").toString();
        String url = startCluster("-D", "rest.jars.delete-with-last-job=true");
        Result run = cli("run", examples, "--cluster", url, "--detached", "--output", "json",
                "-D", "checkpoints.interval=200 ms", "-D", "checkpoints.dir=" + dir.resolve("checkpoints"),
                "--", "--records", "0", "--keys", "4", "--rate", "200", "--output", dir.resolve("counts").toString());
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
        String jobId = run.json().path("jobId").asText();
        await().atMost(TIMEOUT).until(() -> status(url, jobId).path("checkpoints").path("completed").asLong() >= 1);
        String jarId = cli("jars", "--cluster", url, "--output", "json").json().path("jars").get(0).path("id").asText();

        // A crash, then the same directories again.
        cluster.kill();
        String again = startCluster("-D", "rest.jars.delete-with-last-job=true");
        await().atMost(TIMEOUT).until(() -> status(again, jobId).path("status").asText().equals("RUNNING"));

        Result jars = cli("jars", "--cluster", again, "--output", "json");
        assertThat(jars.exitCode()).as(jars.err()).isEqualTo(ExitCodes.OK);
        assertThat(jars.json().path("jars")).hasSize(1);
        assertThat(jars.json().path("jars").get(0).path("id").asText()).isEqualTo(jarId);
        assertThat(jars.json().path("jars").get(0).path("name").asText()).as("the uploaded name, not <id>.jar")
                .isEqualTo("sluice-examples.jar");

        Result inUse = cli("jars", "delete", jarId, "--cluster", again);
        assertThat(inUse.exitCode()).as("used by the recovered job: " + inUse.out() + inUse.err())
                .isEqualTo(ExitCodes.REFUSED);
        assertThat(inUse.err()).contains(jobId);
        assertThat(filesUnder(dir.resolve("jars"))).as("the jar is kept").isNotEmpty();

        assertThat(cli("cancel", jobId, "--cluster", again).exitCode()).isEqualTo(ExitCodes.OK);
        await().atMost(TIMEOUT).until(() -> status(again, jobId).path("status").asText().equals("CANCELED"));
        await().atMost(TIMEOUT).untilAsserted(() -> assertThat(filesUnder(dir.resolve("jars")))
                .as("the jar went with its last job, the recovered one, with every file of it").isEmpty());
        assertThat(cli("jars", "--cluster", again).out()).contains("No jars are stored.");
    }
}
