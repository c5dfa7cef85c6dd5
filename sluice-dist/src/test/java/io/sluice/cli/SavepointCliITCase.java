package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.cli.Cli.Result;
import io.sluice.cli.common.ExitCodes;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice savepoint}, {@code sluice savepoints}, {@code sluice stop --savepoint} and
 * {@code sluice run --restore-from <savepoint>} against a {@code sluice cluster} process (the built
 * {@code sluice.jar}) running the examples jar, in this JVM through {@link SluiceCli#commandLine()}: the
 * savepoint's directory on disk, the restored job's restored checkpoint id, and the exit codes of mistakes.
 */
class SavepointCliITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern WRITTEN = Pattern.compile("Savepoint (\\d+) of job ([0-9a-f]{32}) written to (\\S+) \\(");

    @TempDir
    Path dir;
    private ClusterProcess cluster;

    @AfterEach
    void stop() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Result cli(String... args) {
        return Cli.run(args);
    }

    private static JsonNode json(String url, String... command) throws IOException {
        return Cli.json(url, command);
    }

    private String run(String url, String examples, String... extra) throws IOException {
        List<String> args = new java.util.ArrayList<>(List.of("run", examples, "--cluster", url, "--detached",
                "--output", "json", "-D", "checkpoints.interval=200 ms", "-D", "checkpoints.dir=" + dir.resolve("cp")));
        args.addAll(List.of(extra));
        args.addAll(List.of("--", "--records", "0", "--keys", "4", "--rate", "200", "--source-parallelism", "2",
                "--output", dir.resolve("counts").toString()));
        Result run = cli(args.toArray(String[]::new));
        assertThat(run.exitCode()).as(run.err()).isEqualTo(ExitCodes.OK);
        String jobId = run.json().path("jobId").asText();
        await().atMost(TIMEOUT).until(() -> json(url, "checkpoints", jobId).path("completed").asLong() >= 1);
        return jobId;
    }

    @Test
    void aSavepointIsTakenListedAndAStoppedJobIsRunAgainFromItsSavepoint() throws Exception {
        String examples = ClusterProcess.requiredFile("sluice.examples.jar").toString();
        cluster = ClusterProcess.start(dir, "cluster");
        String url = cluster.url();
        String jobId = run(url, examples);

        Path target = dir.resolve("savepoints");
        Result taken = cli("savepoint", jobId, "--dir", target.toString(), "--cluster", url);
        assertThat(taken.exitCode()).as(taken.err()).isEqualTo(ExitCodes.OK);
        Matcher m = WRITTEN.matcher(taken.out());
        assertThat(m.find()).as(taken.out()).isTrue();
        assertThat(m.group(2)).isEqualTo(jobId);
        Path savepoint = Path.of(URI.create(m.group(3)));
        assertThat(savepoint.getParent()).isEqualTo(target);
        assertThat(savepoint.resolve("_metadata")).isRegularFile();
        assertThat(taken.out()).contains("Restore with: sluice run <jar> --restore-from " + m.group(3));

        Result listed = cli("savepoints", jobId, "--cluster", url);
        assertThat(listed.exitCode()).as(listed.err()).isEqualTo(ExitCodes.OK);
        assertThat(listed.out()).contains("PATH").contains(m.group(3));

        Result noFlag = cli("stop", jobId, "--cluster", url);
        assertThat(noFlag.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(noFlag.err()).contains("--savepoint").contains("sluice cancel");
        assertThat(json(url, "status", jobId).path("status").asText()).isEqualTo("RUNNING");

        Result stopped = cli("stop", jobId, "--savepoint", "--dir", target.toString(), "--cluster", url);
        assertThat(stopped.exitCode()).as(stopped.err()).isEqualTo(ExitCodes.OK);
        assertThat(stopped.out()).contains("Stopping job " + jobId).contains("it ends CANCELED");
        Matcher s = WRITTEN.matcher(stopped.out());
        assertThat(s.find()).as(stopped.out()).isTrue();
        long stopSavepointId = Long.parseLong(s.group(1));
        await().atMost(TIMEOUT).until(() -> json(url, "status", jobId).path("status").asText().equals("CANCELED"));
        assertThat(json(url, "savepoints", jobId).path("savepoints")).hasSize(2);

        Result ended = cli("savepoint", jobId, "--cluster", url);
        assertThat(ended.exitCode()).isEqualTo(ExitCodes.REFUSED);
        assertThat(ended.err()).startsWith("sluice savepoint: ").contains("has ended (CANCELED)");

        // Moved, then restored from where it is now.
        Path moved = dir.resolve("moved").resolve("before upgrade");
        Files.createDirectories(moved.getParent());
        Files.move(Path.of(URI.create(s.group(3))), moved);
        String restored = run(url, examples, "--restore-from", moved.toString());
        assertThat(json(url, "checkpoints", restored).path("restoredId").asLong()).isEqualTo(stopSavepointId);
        assertThat(json(url, "status", restored).path("status").asText()).isEqualTo("RUNNING");

        // Rescaled in one command: a jar that does not exist is refused before anything stops.
        Result noJar = cli("rescale", restored, "3", dir.resolve("missing.jar").toString(), "--cluster", url);
        assertThat(noJar.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(noJar.err()).contains("The job was not stopped");
        assertThat(json(url, "status", restored).path("status").asText()).isEqualTo("RUNNING");
        Result rescaled = cli("rescale", restored, "3", examples, "--dir", target.toString(), "--detached",
                "--cluster", url, "-D", "checkpoints.interval=200 ms", "-D", "checkpoints.dir=" + dir.resolve("cp"),
                "--", "--records", "0", "--keys", "4", "--rate", "200", "--source-parallelism", "2",
                "--output", dir.resolve("counts").toString());
        assertThat(rescaled.exitCode()).as(rescaled.err()).isEqualTo(ExitCodes.OK);
        Matcher r = WRITTEN.matcher(rescaled.out());
        assertThat(r.find()).as(rescaled.out()).isTrue();
        assertThat(rescaled.out()).contains("Stopped job " + restored).contains("at parallelism 3");
        Matcher submitted = Pattern.compile("Job ([0-9a-f]{32}) submitted").matcher(rescaled.out());
        assertThat(submitted.find()).as(rescaled.out()).isTrue();
        String rescaledJob = submitted.group(1);
        await().atMost(TIMEOUT).until(() -> json(url, "status", restored).path("status").asText().equals("CANCELED"));
        await().atMost(TIMEOUT).until(() -> json(url, "checkpoints", rescaledJob).path("completed").asLong() >= 1);
        assertThat(json(url, "checkpoints", rescaledJob).path("restoredId").asLong()).isEqualTo(Long.parseLong(r.group(1)));
        JsonNode vertices = json(url, "status", rescaledJob).path("vertices");
        assertThat(vertices.findValuesAsText("parallelism")).as(vertices.toString()).contains("3");
        assertThat(cli("cancel", rescaledJob, "--cluster", url).exitCode()).isEqualTo(ExitCodes.OK);

        // Mistakes.
        assertThat(cli("savepoint", "not-a-job", "--cluster", url).exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(cli("savepoint", "0123456789abcdef0123456789abcdef", "--cluster", url).exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(cli("stop", "0123456789abcdef0123456789abcdef", "--savepoint", "--cluster", url).exitCode())
                .isEqualTo(ExitCodes.NOT_FOUND);
    }
}
