package io.sluice.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code sluice cluster} process started from the built {@code sluice.jar} for the command-line
 * integration tests: two task executors of two slots, its HA data under {@code <dir>/ha} and its
 * uploaded jars under {@code <dir>/jars}, a REST server on an ephemeral loopback port. Started with
 * {@link #start}, which returns once the process prints its address. Used from the test thread only.
 */
final class ClusterProcess implements AutoCloseable {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final Pattern LISTENING = Pattern.compile("Listening on (http://127\\.0\\.0\\.1:\\d+)/");

    private final Process process;
    private final String url;
    private final Path stdout;

    private ClusterProcess(Process process, String url, Path stdout) {
        this.process = process;
        this.url = url;
        this.stdout = stdout;
    }

    /**
     * Starts {@code sluice cluster} in {@code dir}, its output in {@code <dir>/<name>.out} and
     * {@code .err}, with {@code extraArgs} after the standard ones; fails if it exits before it listens.
     */
    static ClusterProcess start(Path dir, String name, String... extraArgs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path stdout = dir.resolve(name + ".out");
        Path stderr = dir.resolve(name + ".err");
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-jar", requiredFile("sluice.jar").toString(),
                "cluster", "--port", "0", "--task-executors", "2", "--slots", "2",
                "-D", "high-availability.dir=" + dir.resolve("ha"), "--jar-dir", dir.resolve("jars").toString()));
        command.addAll(List.of(extraArgs));
        Process process = new ProcessBuilder(command)
                .directory(dir.toFile())
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .start();
        String[] url = new String[1];
        try {
            await().atMost(STARTUP).until(() -> {
                if (!process.isAlive()) {
                    throw new AssertionError("sluice cluster exited with " + process.exitValue() + ":\n"
                            + Files.readString(stdout) + Files.readString(stderr));
                }
                Matcher m = LISTENING.matcher(Files.readString(stdout));
                if (m.find()) {
                    url[0] = m.group(1);
                    return true;
                }
                return false;
            });
        } catch (RuntimeException | AssertionError e) {
            process.destroyForcibly();
            throw e;
        }
        return new ClusterProcess(process, url[0], stdout);
    }

    /** The file a system property set by the pom names, which the build made before the integration tests. */
    static Path requiredFile(String property) {
        String path = System.getProperty(property);
        assertThat(path).as("system property " + property + " (set by the pom)").isNotNull();
        Path file = Path.of(path);
        assertThat(file).as(property + " is built before the integration tests").isRegularFile();
        return file;
    }

    /** The REST address, {@code http://127.0.0.1:<port>}. */
    String url() {
        return url;
    }

    Process process() {
        return process;
    }

    /** What the process printed to its standard output so far. */
    String output() throws IOException {
        return Files.readString(stdout);
    }

    /** Kills the process (SIGKILL: a crash) and waits for it to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }
}
