package io.sluice.e2e;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Time from SIGKILL to RUNNING, across processes, as medians over {@code -Dsluice.bench.kills}
 * (default 5) kills each of the leading job manager and of a task manager running tasks, with the
 * detection (ZooKeeper session expiry, heartbeat timeout) and the rest (recovery, deployment)
 * separated. A benchmark, not part of the default run (its name matches neither *Test nor
 * *ITCase):
 * {@code mvn -B -pl sluice-e2e -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false
 * -Dit.test=FailoverTimesBenchmark}. Two job managers and three task managers of two slots, ZooKeeper
 * in this JVM with a session timeout of {@code -Dsluice.bench.session-timeout} (default 4 s), the
 * default heartbeat timeout (6 s), the keyed counting job at parallelism 2, checkpoints every
 * 300 ms on a local directory. {@code -Dsluice.bench.jm-kills=0} kills only task managers;
 * {@code -Dsluice.bench.confirm-connection-loss=false} turns off confirming a task manager's loss on
 * a reset connection (then only the heartbeat timeout declares it), for comparison.
 */
class FailoverTimesBenchmark {
    @TempDir
    Path dir;

    @Test
    void sigkillToRunning() throws Exception {
        int kills = Integer.getInteger("sluice.bench.kills", 5);
        int jobManagerKills = Integer.getInteger("sluice.bench.jm-kills", kills);
        String confirm = System.getProperty("sluice.bench.confirm-connection-loss", "true");
        String sessionTimeout = System.getProperty("sluice.bench.session-timeout", "4 s");
        // With a fixed restart delay every kill restarts after the same delay (the default strategy doubles it
        // with each consecutive kill), so each kill shows what failover adds beyond "declared lost + delay".
        String fixedDelay = System.getProperty("sluice.bench.fixed-restart-delay");
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir)) {
            Map<String, String> common = new LinkedHashMap<>();
            common.put("high-availability.type", "zookeeper");
            common.put("high-availability.zookeeper.quorum", zooKeeper.getConnectString());
            common.put("high-availability.cluster-id", "failover-bench");
            common.put("high-availability.zookeeper.session-timeout", sessionTimeout);
            common.put("high-availability.storage-dir", dir.resolve("ha-storage").toString());
            common.put("checkpoints.dir", dir.resolve("checkpoints").toString());
            common.put("checkpoints.interval", "300 ms");
            common.put("heartbeat.confirm-connection-loss", confirm);
            if (fixedDelay != null) {
                common.put("restart-strategy", "fixed-delay");
                common.put("restart-strategy.fixed-delay.delay", fixedDelay);
                common.put("restart-strategy.fixed-delay.attempts", "1000");
            }
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                List<SluiceProcess> jobManagers = new ArrayList<>(List.of(
                        cluster.startJobManager(Host.MACHINE, Map.of()), cluster.startJobManager(Host.MACHINE, Map.of())));
                List<SluiceProcess> taskManagers = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    taskManagers.add(cluster.startTaskManager(Host.MACHINE, 2, Map.of()));
                }
                String leader = awaitLeader(jobManagers);
                await().atMost(Duration.ofSeconds(60)).until(() -> Rest.registeredSlots(leader) == 6);
                String jobId = cluster.submitExample(leader, List.of("--parallelism", "2"),
                        List.of("--records", "0", "--keys", "64", "--rate", "2000"));

                List<long[]> jm = new ArrayList<>();
                for (int k = 0; k < jobManagerKills; k++) {
                    String current = awaitLeader(jobManagers);
                    await().atMost(Duration.ofSeconds(60)).until(() -> Rest.completedCheckpoints(current, jobId) >= 2);
                    SluiceProcess victim = jobManagers.stream().filter(p -> p.restUrl().equals(current)).findFirst()
                            .orElseThrow();
                    long killed = System.currentTimeMillis();
                    victim.kill();
                    jobManagers.remove(victim);
                    String next = awaitLeader(jobManagers);
                    long leads = System.currentTimeMillis();
                    long running = awaitRunningSince(next, jobId, killed);
                    jm.add(new long[] {leads - killed, running - leads, running - killed});
                    System.out.printf("FailoverTimesBenchmark: job manager kill %d: new leader after %d ms, RUNNING"
                            + " %d ms later (%d ms in all)%n", k + 1, leads - killed, running - leads, running - killed);
                    jobManagers.add(cluster.startJobManager(Host.MACHINE, Map.of()));
                    printRestarts("after job manager kill " + (k + 1), next, jobId);
                }

                List<long[]> tm = new ArrayList<>();
                List<Long> declaredLost = new ArrayList<>();
                for (int k = 0; k < kills; k++) {
                    String current = awaitLeader(jobManagers);
                    await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(current, jobId)
                            .filter("RUNNING"::equals).isPresent() && Rest.completedCheckpoints(current, jobId) >= 2);
                    SluiceProcess victim = busyTaskManager(current, taskManagers);
                    String victimId = taskManagerId(victim);
                    long killed = System.currentTimeMillis();
                    victim.kill();
                    long[] lost = new long[1];
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                        lost[0] = System.currentTimeMillis();
                        return !registeredTaskManagers(current).contains(victimId);
                    });
                    taskManagers.remove(victim);
                    taskManagers.add(cluster.startTaskManager(Host.MACHINE, 2, Map.of())); // slots stay sufficient
                    declaredLost.add(lost[0] - killed);
                    long[] left = new long[1];
                    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(20)).until(() -> {
                        left[0] = System.currentTimeMillis();
                        return Rest.jobStatus(current, jobId).filter(s -> !s.equals("RUNNING")).isPresent();
                    });
                    long running = awaitRunningSince(current, jobId, left[0] - 50);
                    tm.add(new long[] {left[0] - killed, running - left[0], running - killed});
                    System.out.printf("FailoverTimesBenchmark: task manager kill %d: declared lost after %d ms, job"
                            + " failed over after %d ms, RUNNING %d ms later (%d ms in all)%n", k + 1, lost[0] - killed,
                            left[0] - killed, running - left[0], running - killed);
                    if (fixedDelay != null) {
                        long delayMillis = io.sluice.config.Durations.parse(fixedDelay).toMillis();
                        System.out.printf("FailoverTimesBenchmark: task manager kill %d: kill to RUNNING beyond declared"
                                + " lost + the %d ms restart delay: %d ms%n", k + 1, delayMillis,
                                running - killed - (lost[0] - killed) - delayMillis);
                    }
                    printRestarts("after task manager kill " + (k + 1), current, jobId);
                }
                if (!jm.isEmpty()) {
                    System.out.printf("FailoverTimesBenchmark: medians over %d kills: job manager: detection (ZooKeeper"
                            + " session timeout %s) %d ms, rest %d ms, total %d ms%n", jm.size(), sessionTimeout,
                            median(jm, 0), median(jm, 1), median(jm, 2));
                }
                System.out.printf("FailoverTimesBenchmark: medians over %d kills, heartbeat.confirm-connection-loss=%s:"
                        + " task manager: declared lost %d ms, job left RUNNING %d ms (heartbeat timeout 6 s), rest %d"
                        + " ms, kill to RUNNING %d ms%n", kills, confirm,
                        declaredLost.stream().sorted().toList().get(declaredLost.size() / 2),
                        median(tm, 0), median(tm, 1), median(tm, 2));
            }
        }
    }

    /**
     * The restarts the leading job master counted (REST {@code restarts}), with their causes: each
     * is one step of the restart strategy's backoff, so a failover should add one per kill.
     */
    private static void printRestarts(String when, String url, String jobId) {
        JsonNode restarts = Rest.job(url, jobId).map(j -> j.path("restarts")).orElse(null);
        if (restarts == null) {
            return;
        }
        StringBuilder causes = new StringBuilder();
        restarts.path("recent").forEach(r -> causes.append("\n    ").append(r.path("cause").asText()));
        System.out.printf("FailoverTimesBenchmark: %s: the job master counted %d restart(s)%s%n", when,
                restarts.path("count").asInt(), causes);
    }

    private static long median(List<long[]> rows, int column) {
        List<Long> values = rows.stream().map(r -> r[column]).sorted().toList();
        return values.get(values.size() / 2);
    }

    private static String awaitLeader(List<SluiceProcess> jobManagers) {
        String[] leader = new String[1];
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() ->
                (leader[0] = Rest.leaderAmong(jobManagers.stream().map(SluiceProcess::restUrl).toList())) != null);
        return leader[0];
    }

    /** Waits until {@code url} reports the job RUNNING with a RUNNING transition after {@code sinceMillis}. */
    static long awaitRunningSince(String url, String jobId, long sinceMillis) {
        long[] at = new long[1];
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(20)).until(() -> {
            JsonNode job = Rest.job(url, jobId).orElse(null);
            if (job == null || !job.path("status").asText().equals("RUNNING")) {
                return false;
            }
            for (JsonNode t : job.path("transitions")) {
                if (t.path("status").asText().equals("RUNNING") && t.path("timestampMillis").asLong() > sinceMillis) {
                    at[0] = t.path("timestampMillis").asLong();
                    return true;
                }
            }
            return false;
        });
        return at[0];
    }

    /** The task manager's id, as it prints it at start. */
    static String taskManagerId(SluiceProcess taskManager) throws Exception {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Sluice task manager (\\S+):")
                .matcher(taskManager.output());
        if (!m.find()) {
            throw new AssertionError("no task manager id in the output of " + taskManager.name());
        }
        return m.group(1);
    }

    /** The ids of the task managers registered with the leader, from its overview. */
    static List<String> registeredTaskManagers(String leaderUrl) {
        List<String> ids = new ArrayList<>();
        Rest.get(leaderUrl, "/v1/overview").ifPresent(a -> a.body().path("taskExecutors")
                .forEach(te -> ids.add(te.path("id").asText())));
        return ids;
    }

    /** A task manager that holds slots of the job, as the leader's overview reports them. */
    static SluiceProcess busyTaskManager(String leaderUrl, List<SluiceProcess> taskManagers) throws Exception {
        java.util.regex.Pattern id = java.util.regex.Pattern.compile("Sluice task manager (\\S+):");
        List<String> busy = new ArrayList<>();
        Rest.get(leaderUrl, "/v1/overview").ifPresent(a -> a.body().path("taskExecutors").forEach(te -> {
            if (te.path("slotsFree").asInt() < te.path("slots").asInt()) {
                busy.add(te.path("id").asText());
            }
        }));
        for (SluiceProcess p : taskManagers) {
            java.util.regex.Matcher m = id.matcher(p.output());
            if (m.find() && busy.contains(m.group(1))) {
                return p;
            }
        }
        throw new AssertionError("no task manager runs tasks: " + busy);
    }
}
