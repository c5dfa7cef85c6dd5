package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
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
 * from a seed (printed) SIGKILLs, twice, the leading job manager, a task manager, or both at once
 * (each started again afterwards); the final count of every key must be exact. Each kill prints the
 * time from SIGKILL to the job RUNNING again. The standby's REST answers (naming the leader, and the
 * job's status forwarded) while the leader lives and after it was killed; at the end a job manager
 * and a task manager stopped with SIGTERM exit 0.
 *
 * <p>Seeds: {@code -Dsluice.e2e.seeds=1,2,3} (default: one fixed seed, so the default run stays near
 * a minute); the soak profile ({@code -Pprocesses-soak}) runs more. The ZooKeeper session timeout is
 * 4 s ({@code high-availability.zookeeper.session-timeout}): a SIGKILLed leader's latch node goes
 * when its session expires, which bounds the job manager failover.
 */
class ClusterProcessesITCase {
    private static final java.util.regex.Pattern TASK_MANAGER_ID =
            java.util.regex.Pattern.compile("Sluice task manager (\\S+):");
    private static final int KEYS = 8;
    private static final long RECORDS = 32_000;
    private static final int RATE = 800;
    private static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);
    private static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    private TestingServer zooKeeper;
    private SluiceCluster processes;

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
        processes = new SluiceCluster(run, clusterConfig("e2e-" + seed));
        try {
            List<SluiceProcess> jobManagers = new ArrayList<>(List.of(processes.startJobManager(Host.MACHINE, Map.of()),
                    processes.startJobManager(Host.MACHINE, Map.of())));
            List<SluiceProcess> taskManagers = new ArrayList<>(List.of(processes.startTaskManager(Host.MACHINE, 2, Map.of()),
                    processes.startTaskManager(Host.MACHINE, 2, Map.of())));
            String leader = awaitLeader(jobManagers);
            await().atMost(RECOVERY_TIMEOUT).until(() -> registeredSlots(leader) == 4);
            SluiceProcess standby = jobManagers.stream().filter(jm -> !jm.restUrl().equals(leader)).findFirst().orElseThrow();

            // The standby's REST answers while the leader lives, naming the leader.
            Optional<String> named = Rest.leaderRestUrl(standby.restUrl());
            assertThat(named).as("the standby names the leader").contains(leader);

            Path output = run.resolve("counts");
            String jobId = submit(leader, run, output);
            await().atMost(RECOVERY_TIMEOUT).until(() -> Rest.jobStatus(leader, jobId).filter("RUNNING"::equals).isPresent());
            assertThat(Rest.jobStatus(standby.restUrl(), jobId)).as("the standby answers for the leader's job")
                    .contains("RUNNING");

            List<String> plan = plan(random);
            System.out.println("ClusterProcessesITCase: seed " + seed + " plan " + plan);
            for (String step : plan) {
                awaitCheckpoints(jobManagers, jobId, 1 + random.nextInt(4));
                List<SluiceProcess> busy = busyTaskManagers(currentLeader(jobManagers), taskManagers);
                long killed = System.currentTimeMillis();
                if (step.equals("kill-leader") || step.equals("kill-both")) {
                    String leaderUrl = currentLeader(jobManagers);
                    SluiceProcess victim = jobManagers.stream().filter(jm -> jm.restUrl().equals(leaderUrl))
                            .findFirst().orElseThrow();
                    victim.kill();
                    jobManagers.remove(victim);
                }
                if (step.equals("kill-taskmanager") || step.equals("kill-both")) {
                    // One that runs tasks of the job (killing an idle one changes nothing for the job).
                    SluiceProcess victim = busy.get(random.nextInt(busy.size()));
                    victim.kill();
                    taskManagers.remove(victim);
                }
                String next = awaitLeader(jobManagers);
                long running = awaitRunningSince(next, jobId, killed);
                System.out.printf("ClusterProcessesITCase: seed %d: %s; job RUNNING again %d ms after the SIGKILL"
                        + " (ZooKeeper session timeout %d s, heartbeat timeout the default)%n", seed, step,
                        running - killed, SESSION_TIMEOUT.toSeconds());
                if (!step.equals("kill-leader")) {
                    taskManagers.add(processes.startTaskManager(Host.MACHINE, 2, Map.of()));
                }
                if (!step.equals("kill-taskmanager")) {
                    SluiceProcess restarted = processes.startJobManager(Host.MACHINE, Map.of());
                    jobManagers.add(restarted);
                    // The new standby's REST answers for the job too (forwarded to the new leader).
                    await().atMost(RECOVERY_TIMEOUT).until(() -> Rest.jobStatus(restarted.restUrl(), jobId).isPresent());
                }
            }

            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200)).until(() -> {
                String l = currentLeader(jobManagers);
                return l != null && Rest.jobStatus(l, jobId).filter("FINISHED"::equals).isPresent();
            });
            KeyedCounts.assertExact(output, RECORDS, KEYS);

            // SIGTERM: a job manager and a task manager stop in order and exit 0.
            for (SluiceProcess p : List.of(jobManagers.get(0), taskManagers.get(0))) {
                p.process().destroy();
                assertThat(p.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as(p.name() + " stops").isTrue();
                assertThat(p.process().exitValue()).as(p.name() + " exit code on SIGTERM").isZero();
            }
        } catch (Throwable t) {
            throw new AssertionError("seed " + seed + " failed: " + t + processes.diagnostics(), t);
        } finally {
            processes.close();
            processes = null;
        }
    }

    @Test
    void aTaskManagerPointedAtAWrongClusterIdSaysSoAndKeepsRetrying() throws Exception {
        processes = new SluiceCluster(dir, clusterConfig("the-cluster"));
        SluiceProcess jm = processes.startJobManager(Host.MACHINE, Map.of());
        SluiceProcess lost = processes.startTaskManager(Host.MACHINE, 1, Map.of("high-availability.cluster-id", "no-such-cluster"));
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

    /**
     * Two kills, each of the leading job manager, a task manager, or both at once, such that both kinds
     * happen (the seed is scrambled first: java.util.Random's first draws of nearby seeds are alike).
     */
    private static List<String> plan(Random random) {
        Random r = new Random(random.nextLong() * 0x9E3779B97F4A7C15L);
        List<String> kinds = List.of("kill-leader", "kill-taskmanager", "kill-both");
        while (true) {
            List<String> plan = List.of(kinds.get(r.nextInt(3)), kinds.get(r.nextInt(3)));
            boolean leader = plan.stream().anyMatch(s -> !s.equals("kill-taskmanager"));
            boolean taskManager = plan.stream().anyMatch(s -> !s.equals("kill-leader"));
            if (leader && taskManager) {
                return plan;
            }
        }
    }

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
            Optional<Rest.Answer> a = Rest.get(jm.restUrl(), "/v1/overview");
            if (a.isPresent() && a.get().status() == 200 && a.get().body().path("leader").path("isThisNode").asBoolean()) {
                return jm.restUrl();
            }
        }
        return null;
    }

    /** The task managers that hold slots (of the only job) as the leader at {@code leaderUrl} reports them. */
    private static List<SluiceProcess> busyTaskManagers(String leaderUrl, List<SluiceProcess> taskManagers) throws IOException {
        List<String> busy = new ArrayList<>();
        await().atMost(RECOVERY_TIMEOUT).until(() -> {
            busy.clear();
            Optional<Rest.Answer> a = Rest.get(leaderUrl, "/v1/overview");
            a.filter(x -> x.status() == 200).ifPresent(x -> x.body().path("taskExecutors").forEach(te -> {
                if (te.path("slotsFree").asInt() < te.path("slots").asInt()) {
                    busy.add(te.path("id").asText());
                }
            }));
            return !busy.isEmpty();
        });
        List<SluiceProcess> out = new ArrayList<>();
        for (SluiceProcess tm : taskManagers) {
            java.util.regex.Matcher m = TASK_MANAGER_ID.matcher(tm.output());
            if (m.find() && busy.contains(m.group(1))) {
                out.add(tm);
            }
        }
        assertThat(out).as("task managers running tasks: " + busy).isNotEmpty();
        return out;
    }

    private static int registeredSlots(String url) {
        return Rest.get(url, "/v1/overview").filter(a -> a.status() == 200).map(a -> a.body().path("slotsTotal").asInt())
                .orElse(-1);
    }

    private static void awaitCheckpoints(List<SluiceProcess> jobManagers, String jobId, int more) {
        long[] start = {-1};
        await().atMost(RECOVERY_TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            String l = currentLeader(jobManagers);
            if (l == null) {
                return false;
            }
            Optional<Rest.Answer> a = Rest.get(l, "/v1/jobs/" + jobId);
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
            Optional<Rest.Answer> a = Rest.get(url, "/v1/jobs/" + jobId);
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

    private String submit(String url, Path run, Path output) throws Exception {
        return processes.submitExample(url, List.of("--parallelism", "2", "-D", "checkpoints.interval=300 ms",
                "-D", "checkpoints.dir=" + run.resolve("checkpoints")), List.of("--records", Long.toString(RECORDS),
                "--keys", Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output", output.toString()));
    }
}
