package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.testing.process.SharedClassArchive;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.curator.test.TestingServer;

/**
 * Starts {@code sluice jobmanager} and {@code sluice taskmanager} processes from the built
 * {@code sluice.jar}, each in a working directory of its own with its stdout and stderr there, on a
 * "host": the machine itself, or a test host of a {@code TestNetwork} (the command then runs under
 * {@code ip netns exec}, and the process binds and advertises that host's address). Test code only.
 */
final class SluiceCluster implements AutoCloseable {
    private static final Pattern LISTENING = Pattern.compile("Listening on (https?://[^/\\s]+)/");
    static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    /** Where a process runs: its address, and how to run a command there. */
    record Host(String address, Function<List<String>, List<String>> launcher) {
        static final Host MACHINE = new Host("127.0.0.1", c -> c);
    }

    /** One running process: its name, its directory and (for a job manager) its REST URL. */
    record SluiceProcess(String name, Process process, Path dir, String restUrl) {
        String output() throws IOException {
            return Files.readString(dir.resolve("stdout")) + Files.readString(dir.resolve("stderr"));
        }

        String log() throws IOException {
            Path log = dir.resolve("sluice-data/logs/sluice.log");
            return Files.exists(log) ? Files.readString(log) : "";
        }

        /** SIGKILL, and wait until it is gone. */
        void kill() throws InterruptedException {
            process.destroyForcibly();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as(name + " ends on SIGKILL").isTrue();
        }
    }

    private final Path root;
    private final Map<String, String> common;
    private final List<SluiceProcess> all = new ArrayList<>();
    private int started;

    /**
     * The settings of ZooKeeper HA at {@code quorum} for the processes of one test cluster: its id, a
     * 4 s session timeout (so a SIGKILLed leader is replaced quickly) and {@code storageDir}.
     */
    static Map<String, String> zooKeeperHa(String quorum, String clusterId, Path storageDir) {
        Map<String, String> c = new java.util.LinkedHashMap<>();
        c.put("high-availability.type", "zookeeper");
        c.put("high-availability.zookeeper.quorum", quorum);
        c.put("high-availability.cluster-id", clusterId);
        c.put("high-availability.zookeeper.session-timeout", "4 s");
        c.put("high-availability.storage-dir", storageDir.toString());
        return c;
    }

    /** What a test does with a cluster. */
    interface ClusterTest {
        void run(SluiceCluster cluster) throws Exception;
    }

    /**
     * Runs {@code test} with a cluster under ZooKeeper HA ({@link #zooKeeperHa}: Curator's server in this JVM, its data
     * and the HA storage in {@code dir}) whose processes also get {@code settings}; afterwards every process is
     * SIGKILLed and the server stopped. A failure carries every process's output ({@link #diagnostics}).
     */
    static void underZooKeeper(Path dir, String clusterId, Map<String, String> settings, ClusterTest test)
            throws Exception {
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir)) {
            Map<String, String> common = new java.util.LinkedHashMap<>(zooKeeperHa(zooKeeper.getConnectString(),
                    clusterId, dir.resolve("ha-storage")));
            common.putAll(settings);
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                try {
                    test.run(cluster);
                } catch (Throwable t) {
                    throw new AssertionError(t + cluster.diagnostics(), t);
                }
            }
        }
    }

    /** @param common the {@code -D} entries every process gets (HA, storage, timeouts) */
    SluiceCluster(Path root, Map<String, String> common) {
        this.root = root;
        this.common = Map.copyOf(common);
    }

    /** A job manager on {@code host} with REST and RPC on free ports; waits until it serves REST. */
    SluiceProcess startJobManager(Host host, Map<String, String> extra) throws IOException {
        return awaitServing(launchJobManager(host, extra));
    }

    /**
     * {@code count} job managers like {@link #startJobManager}, launched all at once (their start-ups
     * overlap) before waiting until each serves REST.
     */
    List<SluiceProcess> startJobManagers(Host host, int count, Map<String, String> extra) throws IOException {
        List<SluiceProcess> launched = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            launched.add(launchJobManager(host, extra));
        }
        List<SluiceProcess> serving = new ArrayList<>();
        for (SluiceProcess p : launched) {
            serving.add(awaitServing(p));
        }
        return serving;
    }

    /**
     * Waits until {@code p} (launched by {@link #launchJobManager}) serves REST; returns it with its REST
     * URL (so a test can launch other processes while it starts).
     */
    SluiceProcess awaitServing(SluiceProcess p) {
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

    /**
     * {@code sluice cluster} (job manager and task executors in one process) on the machine, with
     * REST on a free port; waits until it serves REST.
     */
    SluiceProcess startLocalCluster(List<String> options, Map<String, String> extra) throws IOException {
        return startLocalCluster(List.of(), options, extra);
    }

    /** {@code sluice cluster} like {@link #startLocalCluster(List, Map)}, its JVM started with {@code jvmOptions}. */
    SluiceProcess startLocalCluster(List<String> jvmOptions, List<String> options, Map<String, String> extra)
            throws IOException {
        return startLocalCluster(Host.MACHINE, jvmOptions, options, extra);
    }

    /** {@code sluice cluster} like {@link #startLocalCluster(List, List, Map)}, its command run by {@code host}. */
    SluiceProcess startLocalCluster(Host host, List<String> jvmOptions, List<String> options,
                                    Map<String, String> extra) throws IOException {
        List<String> all = new ArrayList<>(List.of("--port", "0"));
        all.addAll(options);
        return awaitServing(start(host, "cluster", jvmOptions, all, extra));
    }

    /** A task manager on {@code host} with {@code slots} slots; does not wait for its registration. */
    SluiceProcess startTaskManager(Host host, int slots, Map<String, String> extra) throws IOException {
        return startTaskManager(host, slots, extra, List.of());
    }

    /**
     * A task manager like {@link #startTaskManager(Host, int, Map)}, its JVM started with {@code jvmOptions}
     * after the defaults (so {@code -Xmx640m} there wins over the default heap).
     */
    SluiceProcess startTaskManager(Host host, int slots, Map<String, String> extra, List<String> jvmOptions)
            throws IOException {
        return start(host, "taskmanager", jvmOptions, List.of("--slots", Integer.toString(slots)),
                merged(extra, Map.of("taskmanager.host", host.address())));
    }

    private static Map<String, String> merged(Map<String, String> extra, Map<String, String> hostSettings) {
        Map<String, String> m = new java.util.LinkedHashMap<>(hostSettings);
        m.putAll(extra);
        return m;
    }

    private SluiceProcess start(Host host, String role, List<String> options, Map<String, String> extra)
            throws IOException {
        return start(host, role, List.of(), options, extra);
    }

    private SluiceProcess start(Host host, String role, List<String> jvmOptions, List<String> options,
            Map<String, String> extra) throws IOException {
        String name = role + "-" + (started++);
        Path dir = Files.createDirectories(root.resolve(name));
        List<String> command = new ArrayList<>(List.of(java(), "-Xmx320m", "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1"));
        command.addAll(classArchive());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", sluiceJar().toString(), role));
        command.addAll(options);
        Map<String, String> settings = new java.util.LinkedHashMap<>(common);
        settings.putAll(extra);
        settings.forEach((k, v) -> {
            command.add("-D");
            command.add(k + "=" + v);
        });
        Process process = new ProcessBuilder(host.launcher().apply(command)).directory(dir.toFile())
                .redirectOutput(dir.resolve("stdout").toFile())
                .redirectError(dir.resolve("stderr").toFile())
                .start();
        SluiceProcess p = new SluiceProcess(name, process, dir, null);
        all.add(p);
        return p;
    }

    /**
     * Runs {@code sluice run <example jar> --cluster url --detached --output json ...} as a process
     * and returns the job id it prints.
     */
    String submitExample(String restUrl, List<String> runOptions, List<String> programArgs) throws Exception {
        CommandResult run = submitJar(examplesJar(), restUrl, runOptions, programArgs);
        assertThat(run.exitCode()).as("sluice run:\n" + run.output()).isZero();
        return run.jobId();
    }

    /** A {@code sluice} command that ran to its end: its exit code and its output (stdout and stderr). */
    record CommandResult(int exitCode, String output) {
        /** The job id in the JSON output of {@code sluice run --output json}. */
        String jobId() {
            Matcher m = Pattern.compile("\"jobId\"\\s*:\\s*\"([0-9a-f]+)\"").matcher(output);
            assertThat(m.find()).as("a job id in:\n" + output).isTrue();
            return m.group(1);
        }
    }

    /** Runs {@code sluice run <jar> --cluster url --detached --output json ...} as a process to its end. */
    CommandResult submitJar(Path jar, String restUrl, List<String> runOptions, List<String> programArgs) throws Exception {
        List<String> command = new ArrayList<>(clientJvm());
        command.addAll(List.of("run", jar.toString(), "--cluster", restUrl, "--detached", "--output", "json"));
        command.addAll(runOptions);
        command.add("--");
        command.addAll(programArgs);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new CommandResult(p.exitValue(), out);
    }

    /** Runs {@code sluice <args>} as a process in {@code dir} to its end (at most two minutes). */
    static CommandResult sluice(Path dir, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(clientJvm());
        command.addAll(args);
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("sluice " + args + " ends").isTrue();
        return new CommandResult(p.exitValue(), out);
    }

    /** A job manager like {@link #startJobManager}, without waiting for its REST API (for one that should exit). */
    SluiceProcess launchJobManager(Host host, Map<String, String> extra) throws IOException {
        Map<String, String> hostSettings = new java.util.LinkedHashMap<>(Map.of("rest.address", host.address(),
                "jobmanager.rpc.host", host.address(), "jobmanager.rpc.port", "0"));
        if (host != Host.MACHINE) {
            // A test host's address is off loopback, but only inside the network namespaces this test made.
            hostSettings.put("rest.auth.allow-unauthenticated", "true");
        }
        return start(host, "jobmanager", List.of("--port", "0"), merged(extra, hostSettings));
    }

    /**
     * {@code java ... -jar sluice.jar} for a short client command ({@code sluice run}, {@code sluice
     * cancel}): only the client compiler and the serial collector, which start a short-lived JVM
     * fastest on a loaded machine (the command's work is the same).
     */
    private static List<String> clientJvm() {
        List<String> command = new ArrayList<>(List.of(java(), "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        command.addAll(classArchive());
        command.addAll(List.of("-jar", sluiceJar().toString()));
        return command;
    }

    /**
     * The options that let every process of this suite map the classes of {@code sluice.jar} from one archive, made
     * by a {@code sluice cluster} run the first time (docs/testing.md, "One class archive for the processes").
     */
    private static List<String> classArchive() {
        return SharedClassArchive.jvmOptions(sluiceJar(), Path.of("target", "class-archive"),
                List.of("cluster", "--port", "0"), "Listening on");
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static Path sluiceJar() {
        return requiredFile("sluice.jar");
    }

    static Path examplesJar() {
        return requiredFile("sluice.examples.jar");
    }

    /** {@code sluice-examples-kafka.jar}: the examples with the Kafka connector inside (KafkaClickSessions). */
    static Path examplesKafkaJar() {
        return requiredFile("sluice.examples.kafka.jar");
    }

    private static Path requiredFile(String property) {
        String path = System.getProperty(property);
        assertThat(path).as("system property " + property + " (set by the pom)").isNotNull();
        Path file = Path.of(path);
        assertThat(file).as(property + " is built before the end-to-end tests").isRegularFile();
        return file;
    }

    /** Every process's output and the end of its log, for a failure message. */
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

    /** Every process this cluster started, in the order they started. */
    List<SluiceProcess> processes() {
        return List.copyOf(all);
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
