package io.sluice.cli.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts {@code sluice jobmanager} and {@code sluice taskmanager} processes from the built
 * {@code sluice.jar}, each in a working directory of its own (so each has its own
 * {@code sluice-data/logs/sluice.log}), with stdout and stderr in files there. Test code only.
 */
final class SluiceProcesses implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("Listening on (http://127\\.0\\.0\\.1:\\d+)/");
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path root;
    private final Map<String, String> common;
    private final List<SluiceProcess> all = new ArrayList<>();
    private int started;

    /** One running process: its role, its directory and (for a job manager) its REST URL. */
    record SluiceProcess(String name, Process process, Path dir, String restUrl) {
        String output() throws IOException {
            return Files.readString(dir.resolve("stdout")) + Files.readString(dir.resolve("stderr"));
        }

        String log() throws IOException {
            Path log = dir.resolve("sluice-data/logs/sluice.log");
            return Files.exists(log) ? Files.readString(log) : "";
        }

        /** SIGKILL ({@link Process#destroyForcibly()} on Linux), and wait until it is gone. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(name + " ends on SIGKILL").isTrue();
        }
    }

    /** @param common the {@code -D} entries every process gets (HA, checkpoints, timeouts) */
    SluiceProcesses(Path root, Map<String, String> common) {
        this.root = root;
        this.common = Map.copyOf(common);
    }

    /** A job manager with REST on a free port and RPC on a free port; waits until it serves REST. */
    SluiceProcess startJobManager(Map<String, String> extra) throws IOException {
        SluiceProcess p = start("jobmanager", extra, List.of("--port", "0"));
        String[] url = new String[1];
        await().atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            if (!p.process().isAlive()) {
                throw new AssertionError(p.name() + " exited with " + p.process().exitValue() + ":\n" + p.output());
            }
            Matcher m = LISTENING.matcher(Files.readString(p.dir().resolve("stdout")));
            if (m.find()) {
                url[0] = m.group(1);
                return true;
            }
            return false;
        });
        SluiceProcess withUrl = new SluiceProcess(p.name(), p.process(), p.dir(), url[0]);
        all.set(all.indexOf(p), withUrl);
        return withUrl;
    }

    /** A task manager with {@code slots} slots; does not wait for its registration. */
    SluiceProcess startTaskManager(int slots, Map<String, String> extra) throws IOException {
        return start("taskmanager", extra, List.of("--slots", Integer.toString(slots)));
    }

    private SluiceProcess start(String role, Map<String, String> extra, List<String> options) throws IOException {
        String name = role + "-" + (started++);
        Path dir = Files.createDirectories(root.resolve(name));
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx320m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-jar", sluiceJar().toString(), role));
        command.addAll(options);
        for (Map<String, String> entries : List.of(common, extra)) {
            entries.forEach((k, v) -> {
                command.add("-D");
                command.add(k + "=" + v);
            });
        }
        Process process = new ProcessBuilder(command).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout").toFile())
                .redirectError(dir.resolve("stderr").toFile())
                .start();
        SluiceProcess p = new SluiceProcess(name, process, dir, null);
        all.add(p);
        return p;
    }

    static Path sluiceJar() {
        return requiredFile("sluice.jar");
    }

    static Path examplesJar() {
        return requiredFile("sluice.examples.jar");
    }

    private static Path requiredFile(String property) {
        String path = System.getProperty(property);
        assertThat(path).as("system property " + property + " (set by the pom)").isNotNull();
        Path file = Path.of(path);
        assertThat(file).as(property + " is built before the integration tests").isRegularFile();
        return file;
    }

    /** Every process's output and log, for a failure message. */
    String diagnostics() {
        StringBuilder out = new StringBuilder();
        for (SluiceProcess p : all) {
            try {
                String log = p.log();
                out.append("\n===== ").append(p.name()).append(p.process().isAlive() ? " (alive)" : " (ended)")
                        .append(" output:\n").append(p.output())
                        .append("\n----- log (last 6000 chars):\n").append(log.substring(Math.max(0, log.length() - 6000)));
            } catch (IOException e) {
                out.append("\n(could not read the output of ").append(p.name()).append(": ").append(e).append(')');
            }
        }
        return out.toString();
    }

    @Override
    public void close() throws InterruptedException {
        for (SluiceProcess p : all) {
            p.process().destroyForcibly();
        }
        for (SluiceProcess p : all) {
            p.process().waitFor(30, TimeUnit.SECONDS);
        }
    }
}
