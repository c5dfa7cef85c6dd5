package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task manager running tasks of the keyed counting job is SIGKILLed: its connections are reset at
 * once, so the job manager confirms the loss by reconnecting (refused) and declares it lost well
 * before the heartbeat timeout (6 s, the default) — asserted below it, and by the log's words — and the job runs
 * again on the other task managers and ends with exact counts. One job manager (ZooKeeper HA in
 * this JVM), three task managers of one slot, parallelism 2, checkpoints every 300 ms, default
 * heartbeats and {@code heartbeat.confirm-connection-loss.deadline} (1 s).
 */
class TaskManagerSigkillITCase {
    private static final int KEYS = 8;
    /** 10 s of input at {@code RATE}: the kill comes after two checkpoints, the rest runs after the recovery. */
    private static final long RECORDS = 10_000;
    private static final int RATE = 1_000;

    @TempDir
    Path dir;

    @Test
    void aSigkilledBusyTaskManagerIsDeclaredLostWellBeforeTheHeartbeatTimeoutAndTheCountsStayExact() throws Exception {
        SluiceCluster.underZooKeeper(dir, "tm-sigkill", Map.of("checkpoints.dir", dir.resolve("checkpoints").toString(),
                "checkpoints.interval", "300 ms"), this::run);
    }

    private void run(SluiceCluster cluster) throws Exception {
        // Every process launched at once (their start-ups overlap); the task managers find the leader in ZooKeeper.
        SluiceProcess launched = cluster.launchJobManager(Host.MACHINE, Map.of());
        List<SluiceProcess> taskManagers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            taskManagers.add(cluster.startTaskManager(Host.MACHINE, 1, Map.of()));
        }
        SluiceProcess jobManager = cluster.awaitServing(launched);
        String jm = jobManager.restUrl();
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.isLeader(jm) && Rest.registeredSlots(jm) == 3);
        Path output = dir.resolve("counts");
        String jobId = cluster.submitExample(jm, List.of("--parallelism", "2"), List.of("--records",
                Long.toString(RECORDS), "--keys", Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output",
                output.toString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(jm, jobId).filter("RUNNING"::equals)
                .isPresent() && Rest.completedCheckpoints(jm, jobId) >= 2);

        SluiceProcess victim = FailoverTimesBenchmark.busyTaskManager(jm, taskManagers);
        long killed = System.currentTimeMillis();
        victim.kill();
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> Rest.registeredSlots(jm) == 2);
        long declared = System.currentTimeMillis() - killed;
        System.out.println("TaskManagerSigkillITCase: the SIGKILLed task manager was declared lost after " + declared
                + " ms (heartbeat timeout 6 s)");
        assertThat(jobManager.output()).as("the job manager says how it knew").contains("reconnect attempt(s) over")
                .doesNotContain("lost: no heartbeat for");
        // The log says how it knew (above); the time is bounded by the heartbeat timeout only, since a loaded
        // machine stretches the reconnect attempts.
        assertThat(declared).as("declared lost before the heartbeat timeout of 6 s (ms)").isLessThan(6_000);

        long running = FailoverTimesBenchmark.awaitRunningSince(jm, jobId, killed);
        System.out.println("TaskManagerSigkillITCase: RUNNING again " + (running - killed) + " ms after the kill");
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(jm, jobId).filter("FINISHED"::equals).isPresent());
        KeyedCounts.assertExact(output, RECORDS, KEYS);
    }
}
