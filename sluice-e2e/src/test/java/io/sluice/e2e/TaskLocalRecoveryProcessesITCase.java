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
 * Task-local recovery of RocksDB changelog checkpoints across real processes: one job manager (ZooKeeper HA in this
 * JVM) and two task managers of one slot each, which take changelog checkpoints
 * ({@code state.backend.rocksdb.changelog.materialize-every: 1000}, so every checkpoint after the first is one) and keep
 * task-local copies (the job's {@code -D state.backend.local-recovery=true}). The keyed counting job runs at
 * parallelism 2, one subtask per task manager. After three completed checkpoints one task manager is SIGKILLed and a
 * new one started: the whole job restarts from the latest checkpoint. The survivor's subtask runs on the survivor
 * again and opens the whole RocksDB instance it kept for that checkpoint, replaying none of the changelog; the killed
 * one's subtask restores on the new task manager from storage and replays the changelog. The counts are exact.
 */
class TaskLocalRecoveryProcessesITCase {
    private static final int KEYS = 8;
    /** 10 s of input at {@code RATE}: the kill comes after three checkpoints, the rest runs after the recovery. */
    private static final long RECORDS = 10_000;
    private static final int RATE = 1_000;

    @TempDir
    Path dir;

    @Test
    void theSurvivorOfATaskManagerLossOpensTheInstanceItKeptAndTheNewOneReplaysTheChangelog() throws Exception {
        SluiceCluster.underZooKeeper(dir, "local-recovery", Map.of("checkpoints.dir",
                dir.resolve("checkpoints").toString(), "checkpoints.interval", "300 ms"), this::run);
    }

    private void run(SluiceCluster cluster) throws Exception {
        Map<String, String> changelog = Map.of("state.backend.rocksdb.local-dir", dir.resolve("rocksdb").toString(),
                "state.backend.rocksdb.changelog.materialize-every", "1000");
        SluiceProcess launched = cluster.launchJobManager(Host.MACHINE, Map.of());
        List<SluiceProcess> taskManagers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            taskManagers.add(cluster.startTaskManager(Host.MACHINE, 1, changelog));
        }
        String jm = cluster.awaitServing(launched).restUrl();
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.isLeader(jm) && Rest.registeredSlots(jm) == 2);
        Path output = dir.resolve("counts");
        String jobId = cluster.submitExample(jm, List.of("--parallelism", "2", "-D", "state.backend=rocksdb", "-D",
                "state.backend.incremental=true", "-D", "state.backend.local-recovery=true"), List.of("--records",
                Long.toString(RECORDS), "--keys", Integer.toString(KEYS), "--rate", Integer.toString(RATE), "--output",
                output.toString()));
        await().atMost(Duration.ofSeconds(60)).until(() -> Rest.jobStatus(jm, jobId).filter("RUNNING"::equals)
                .isPresent() && Rest.completedCheckpoints(jm, jobId) >= 3);

        SluiceProcess victim = taskManagers.get(0);
        SluiceProcess survivor = taskManagers.get(1);
        long killed = System.currentTimeMillis();
        victim.kill();
        SluiceProcess replacement = cluster.startTaskManager(Host.MACHINE, 1, changelog);
        long running = FailoverTimesBenchmark.awaitRunningSince(jm, jobId, killed);
        System.out.println("TaskLocalRecoveryProcessesITCase: RUNNING again " + (running - killed)
                + " ms after the SIGKILL");
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(jm, jobId).filter("FINISHED"::equals).isPresent());
        KeyedCounts.assertExact(output, RECORDS, KEYS);

        List<String> survivorRestores = restoreLines(survivor);
        List<String> replacementRestores = restoreLines(replacement);
        System.out.println("TaskLocalRecoveryProcessesITCase: the survivor's restores: " + survivorRestores);
        System.out.println("TaskLocalRecoveryProcessesITCase: the new task manager's restores: " + replacementRestores);
        assertThat(survivorRestores).as("the survivor's subtask, restored where it ran").anySatisfy(l ->
                assertThat(l).contains("Opened the task-local instance of the restored changelog checkpoint"));
        assertThat(survivorRestores).as("the survivor replays nothing").noneSatisfy(l ->
                assertThat(l).contains("Replayed"));
        assertThat(replacementRestores).as("the killed one's subtask, restored from storage on the new task manager")
                .anySatisfy(l -> assertThat(l).contains("Replayed")).noneSatisfy(l ->
                        assertThat(l).contains("Opened the task-local instance"));
    }

    /** What a task manager's log says about its RocksDB restores. */
    private static List<String> restoreLines(SluiceProcess taskManager) throws Exception {
        return taskManager.log().lines().filter(l -> l.contains("Opened the task-local instance")
                || l.contains("Replayed") || l.contains("restored RocksDB's files of checkpoint")).toList();
    }
}
