package io.sluice.cli.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.cli.ExitCodes;
import io.sluice.cli.SluiceCli;
import io.sluice.cli.process.SluiceProcesses.SluiceProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sluice as separate processes on one machine: ZooKeeper (Curator's {@code TestingServer}) in this
 * JVM, two {@code sluice jobmanager} and two {@code sluice taskmanager} processes from the built
 * {@code sluice.jar}, checkpoints and the HA jar storage on a shared temporary directory. The keyed
 * counting example ({@code sluice-examples.jar}) is submitted through REST, and a schedule drawn
 * from a seed (printed) SIGKILLs the leading job manager and a task manager (each started again
 * afterwards); the final count of every key must be exact. Each kill prints the time from SIGKILL to
 * the job RUNNING again.
 *
 * <p>Seeds: {@code -Dsluice.e2e.seeds=1,2,3} (default: one fixed seed, so the default run stays near
 * a minute); the soak profile ({@code -Pprocesses-soak}) runs more. The ZooKeeper session timeout is
 * 4 s ({@code high-availability.zookeeper.session-timeout}): a SIGKILLed leader's latch node goes
 * when its session expires, which bounds the job manager failover.
 */
class ClusterProcessesITCase {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.util.regex.Pattern LINE = java.util.regex.Pattern.compile("(\\d+),(\\d+)");
    private static final int KEYS = 8;
    private static final long RECORDS = 24_000;
    private static final int RATE = 800;
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private TestingServer zooKeeper;
    private SluiceProcesses processes;

    @BeforeEach
    void startZooKeeper() throws Exception {
        zooKeeper = new TestingServer(true);
    }

    @AfterEach
    void stopAll() throws Exception {
        if (processes != null) {
            processes.close();
        }
        zooKeeper.close();
    }

    private Map<String, String> clusterConfig(String clusterId) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("high-availability.type", "zookeeper");
        c.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
        c.put("high-availability.cluster-id", clusterId);
        c.put("high-availability.zookeeper.session-timeout", SESSION_TIMEOUT.toSeconds() + " s");
        c.put("high-availability.storage-dir", dir.resolve("ha-storage").toString());
        c.put("jobmanager.rpc.port", "0");
        return c;
    }

    @Test
    void theKeyedCountsAreExactWhileTheLeadingJobManagerAndATaskManagerAreSigkilled() throws Exception {
        String seeds = System.getProperty("sluice.e2e.seeds", "20261201");
        for (String s : seeds.split(",")) {
            long seed = Long.parseLong(s.trim());
            System.out.println("ClusterProcessesITCase: seed " + seed + " (replay with -Dsluice.e2e.seeds=" + seed + ")");
            runSeed(seed);
        }
    }

    private void runSeed(long seed) throws Exception {
        Random random = new Random(seed);
        Path run = Files.createDirectories(dir.resolve("seed-" + seed));
        processes = new SluiceProcesses(run, clusterConfig("e2e-" + seed));
        try {
            List<SluiceProcess> jobManagers = new ArrayList<>(List.of(processes.startJobManager(Map.of()),
                    processes.startJobManager(Map.of())));
            List<SluiceProcess> taskManagers = new ArrayList<>(List.of(processes.startTaskManager(2, Map.of()),
                    processes.startTaskManager(2, Map.of())));
            String leader = awaitLeader(jobManagers);
            await().atMost(RECOVERY_TIMEOUT).until(() -> registeredSlots(leader) == 4);
            SluiceProcess standby = jobManagers.stream().filter(jm -> !jm.restUrl().equals(leader)).findFirst().orElseThrow();

            // The standby's REST answers while the leader lives, naming the leader.
            Optional<String> named = RestProbe.leaderRestUrl(standby.restUrl());
            assertThat(named).as("the standby names the leader").contains(leader);

            Path output = run.resolve("counts");
            String jobId = submit(leader, run, output);
            await().atMost(RECOVERY_TIMEOUT).until(() -> RestProbe.jobStatus(leader, jobId).filter("RUNNING"::equals).isPresent());
            assertThat(RestProbe.jobStatus(standby.restUrl(), jobId)).as("the standby answers for the leader's job")
                    .contains("RUNNING");

            List<String> plan = new ArrayList<>(List.of("kill-leader", "kill-taskmanager"));
            java.util.Collections.shuffle(plan, random);
            System.out.println("ClusterProcessesITCase: seed " + seed + " plan " + plan);
            for (String step : plan) {
                awaitCheckpoints(jobManagers, jobId, 1 + random.nextInt(4));
                if (step.equals("kill-leader")) {
                    SluiceProcess victim = jobManagers.stream().filter(jm -> jm.restUrl().equals(currentLeader(jobManagers)))
                            .findFirst().orElseThrow();
                    long killed = System.currentTimeMillis();
                    victim.kill();
                    jobManagers.remove(victim);
                    String next = awaitLeader(jobManagers);
                    long running = awaitRunningSince(next, jobId, killed);
                    System.out.printf("ClusterProcessesITCase: seed %d: leading job manager SIGKILLed; job RUNNING on the"
                            + " new leader %d ms later (ZooKeeper session timeout %d s)%n", seed, running - killed,
                            SESSION_TIMEOUT.toSeconds());
                    SluiceProcess restarted = processes.startJobManager(Map.of());
                    jobManagers.add(restarted);
                    // The new standby's REST answers for the job too (forwarded to the new leader).
                    await().atMost(RECOVERY_TIMEOUT).until(() -> RestProbe.jobStatus(restarted.restUrl(), jobId).isPresent());
                } else {
                    SluiceProcess victim = taskManagers.get(random.nextInt(taskManagers.size()));
                    long killed = System.currentTimeMillis();
                    victim.kill();
                    taskManagers.remove(victim);
                    long running = awaitRunningSince(currentLeader(jobManagers), jobId, killed);
                    System.out.printf("ClusterProcessesITCase: seed %d: task manager SIGKILLed; job RUNNING again %d ms"
                            + " later (heartbeat timeout: the default)%n", seed, running - killed);
                    taskManagers.add(processes.startTaskManager(2, Map.of()));
                }
            }

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
                String l = currentLeader(jobManagers);
                return l != null && RestProbe.jobStatus(l, jobId).filter("FINISHED"::equals).isPresent();
            });
            assertExactCounts(output);
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + " failed: " + t + processes.diagnostics(), t);
        } finally {
            processes.close();
            processes = null;
        }
    }

    @Test
    void aTaskManagerPointedAtAWrongClusterIdSaysSoAndKeepsRetrying() throws Exception {
        processes = new SluiceProcesses(dir, clusterConfig("the-cluster"));
        SluiceProcess jm = processes.startJobManager(Map.of());
        SluiceProcess lost = processes.startTaskManager(1, Map.of("high-availability.cluster-id", "no-such-cluster"));
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> lost.output().contains("no-such-cluster")
                    && lost.output().contains("no job manager leads"));
            long lines = lost.output().lines().filter(l -> l.contains("no job manager leads")).count();
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> lost.output().lines().filter(l -> l.contains("no job manager leads")).count() > lines);
            assertThat(lost.process().isAlive()).as("it keeps retrying instead of exiting").isTrue();
            assertThat(registeredSlots(jm.restUrl())).isZero();
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** Waits until one of {@code jobManagers} is named leader by itself; returns its REST URL. */
    private static String awaitLeader(List<SluiceProcess> jobManagers) {
        String[] leader = new String[1];
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
            leader[0] = currentLeader(jobManagers);
            return leader[0] != null;
        });
        return leader[0];
    }

    /** The REST URL of the job manager among {@code jobManagers} that calls itself leader, or null. */
    private static String currentLeader(List<SluiceProcess> jobManagers) {
        for (SluiceProcess jm : jobManagers) {
            Optional<RestProbe.Answer> a = RestProbe.get(jm.restUrl(), "/v1/overview");
            if (a.isPresent() && a.get().status() == 200 && a.get().body().path("leader").path("isThisNode").asBoolean()) {
                return jm.restUrl();
            }
        }
        return null;
    }

    private static int registeredSlots(String url) {
        return RestProbe.get(url, "/v1/overview").filter(a -> a.status() == 200).map(a -> a.body().path("slotsTotal").asInt())
                .orElse(-1);
    }

    private static void awaitCheckpoints(List<SluiceProcess> jobManagers, String jobId, int more) {
        long[] start = {-1};
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            String l = currentLeader(jobManagers);
            if (l == null) {
                return false;
            }
            Optional<RestProbe.Answer> a = RestProbe.get(l, "/v1/jobs/" + jobId);
            if (a.isEmpty() || a.get().status() != 200) {
                return false;
            }
            long completed = a.get().body().path("checkpoints").path("completed").asLong();
            if (start[0] < 0) {
                start[0] = completed;
            }
            return completed >= start[0] + more;
        });
    }

    /** Waits until {@code url} reports the job RUNNING with a RUNNING transition after {@code sinceMillis}; returns when. */
    private static long awaitRunningSince(String url, String jobId, long sinceMillis) {
        long[] at = new long[1];
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> {
            Optional<RestProbe.Answer> a = RestProbe.get(url, "/v1/jobs/" + jobId);
            if (a.isEmpty() || a.get().status() != 200 || !a.get().body().path("status").asText().equals("RUNNING")) {
                return false;
            }
            for (JsonNode t : a.get().body().path("transitions")) {
                if (t.path("status").asText().equals("RUNNING") && t.path("timestampMillis").asLong() > sinceMillis) {
                    at[0] = t.path("timestampMillis").asLong();
                    return true;
                }
            }
            return false;
        });
        return at[0];
    }

    private String submit(String url, Path run, Path output) throws IOException {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        var cli = SluiceCli.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute("run", SluiceProcesses.examplesJar().toString(), "--cluster", url, "--detached",
                "--output", "json", "--parallelism", "2",
                "-D", "checkpoints.interval=300 ms", "-D", "checkpoints.dir=" + run.resolve("checkpoints"),
                "--", "--records", Long.toString(RECORDS), "--keys", Integer.toString(KEYS), "--rate", Integer.toString(RATE),
                "--output", output.toString());
        assertThat(code).as(out + "\n" + err).isEqualTo(ExitCodes.OK);
        return JSON.readTree(out.toString()).path("jobId").asText();
    }

    /** The last count the sink wrote per key (the highest: a replay after a restore writes lower counts again). */
    private static void assertExactCounts(Path output) throws IOException {
        Map<String, Long> highest = new HashMap<>();
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.toList()) {
                for (String line : Files.readAllLines(part)) {
                    // A line torn by a SIGKILLed writer does not match (the next writer's line runs into it).
                    java.util.regex.Matcher m = LINE.matcher(line);
                    if (m.matches()) {
                        highest.merge(m.group(1), Long.parseLong(m.group(2)), Math::max);
                    }
                }
            }
        }
        Map<String, Long> expected = new HashMap<>();
        for (int k = 0; k < KEYS; k++) {
            expected.put(Integer.toString(k), RECORDS / KEYS);
        }
        assertThat(highest).as("the final count of every key (exactly-once keyed state)").isEqualTo(expected);
    }
}
