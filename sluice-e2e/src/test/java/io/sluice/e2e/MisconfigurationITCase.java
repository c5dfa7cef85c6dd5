package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input and misconfiguration across separate processes, on one cluster shared by the cases (in
 * this order): ZooKeeper in this JVM, a leading and a standby job manager, task managers, all with
 * {@code rpc.max-message-size} 1 MiB. The keyed counting job A, submitted through the standby (which
 * forwards it and says which job manager accepted it), runs through every case and must end with
 * exact counts and no restart:
 * <ol>
 *   <li>a job manager whose {@code high-availability.storage-dir} differs from the leader's exits with
 *       78, naming the key and both values; one whose {@code rpc.max-message-size} differs (8 MiB)
 *       starts and warns, naming the key and both values;</li>
 *   <li>a job whose graph (a 2 MiB lookup table in a function) exceeds the limit: submitted through a
 *       standby it is refused naming the size, the limit and the key, by the standby itself (the same
 *       limit) and by the leader (the standby with the larger limit sent it); that standby's connection
 *       to the leader keeps working (it forwards the next job);</li>
 *   <li>job B's stored jar is changed in the HA storage while B runs, and the task manager it ran on
 *       SIGKILLed: the next task manager refuses the jar (its SHA-256 differs from the recorded one), B's
 *       status names the jar and both digests, B runs none of that jar's code and keeps restarting with
 *       backoff; once the jar is restored B resumes from its checkpoint by itself, with exact counts.</li>
 * </ol>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MisconfigurationITCase {
    private static final String CLUSTER_ID = "misconfigured";
    private static final int KEYS = 8;
    private static final long RECORDS_A = 40_000;
    private static final int RATE_A = 800;
    private static final long RECORDS_B = 4_000;
    private static final int RATE_B = 400;
    private static final int RPC_LIMIT = 1024 * 1024;
    private static final int TABLE_BYTES = 2 * 1024 * 1024;
    /**
     * Bound of every wait for something that must happen (all positive waits): 120 s, as a lost task
     * manager (6 s heartbeat), a failover and a new process's jar fetch took over 60 s on a 2-core
     * machine at load 20.
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    @TempDir
    static Path dir;

    private TestingServer zooKeeper;
    private SluiceCluster processes;
    private SluiceProcess leader;
    private SluiceProcess standby;
    private SluiceProcess otherLimitStandby;
    /** The task manager with two slots that runs job A. */
    private SluiceProcess twoSlotTaskManager;
    private String jobA;
    private Path outputA;

    @BeforeAll
    void startCluster() throws Exception {
        zooKeeper = TestingZooKeeper.start(dir);
        processes = new SluiceCluster(dir, clusterConfig());
        leader = processes.startJobManager(Host.MACHINE, Map.of());
        await().atMost(TIMEOUT).until(() -> Rest.isLeader(leader.restUrl()));
        // The standby and the task manager start at once (their start-ups overlap).
        SluiceProcess launchedStandby = processes.launchJobManager(Host.MACHINE, Map.of());
        twoSlotTaskManager = processes.startTaskManager(Host.MACHINE, 2, Map.of());
        standby = processes.awaitServing(launchedStandby);
        await().atMost(TIMEOUT).until(() -> Rest.registeredSlots(leader.restUrl()) == 2);
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (processes != null) {
            processes.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private Map<String, String> clusterConfig() {
        Map<String, String> c = SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), CLUSTER_ID, dir.resolve("ha-storage"));
        c.put("rpc.max-message-size", Integer.toString(RPC_LIMIT));
        return c;
    }

    @Test
    @Order(1)
    void aJarSubmittedThroughAStandbyIsForwardedAndTheAnswerNamesTheLeader() throws Exception {
        try {
            outputA = dir.resolve("counts-a");
            CommandResult run = processes.submitJar(SluiceCluster.examplesJar(), standby.restUrl(), jobOptions("a", 2),
                    countingArgs(RECORDS_A, RATE_A, outputA));
            assertThat(run.exitCode()).as("sluice run through the standby:\n" + run.output()).isZero();
            jobA = run.jobId();
            String leaderId = Rest.get(leader.restUrl(), "/v1/overview").orElseThrow().body().path("leader")
                    .path("contenderId").asText();
            assertThat(run.output()).as("the answer names the job manager that accepted the job")
                    .containsPattern("\"acceptedBy\"\\s*:\\s*\"" + java.util.regex.Pattern.quote(leaderId) + "\"")
                    .containsPattern("\"forwarded\"\\s*:\\s*true");
            await().atMost(TIMEOUT).until(() -> Rest.jobStatus(leader.restUrl(), jobA).filter("RUNNING"::equals).isPresent());
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    @Test
    @Order(2)
    void aJobManagerWithAnotherStorageDirRefusesToStartAndOneWithAnotherRpcLimitWarns() throws Exception {
        try {
            Path otherStorage = dir.resolve("other-ha-storage");
            SluiceProcess refused = processes.launchJobManager(Host.MACHINE,
                    Map.of("high-availability.storage-dir", otherStorage.toString()));
            assertThat(refused.process().waitFor(60, TimeUnit.SECONDS)).as("it exits instead of standing by").isTrue();
            assertThat(refused.process().exitValue()).as("exit code\n" + refused.output()).isEqualTo(78);
            assertThat(refused.output()).contains("high-availability.storage-dir: this job manager " + otherStorage
                    + ", the leader " + dir.resolve("ha-storage"));

            otherLimitStandby = processes.startJobManager(Host.MACHINE, Map.of("rpc.max-message-size", "8388608"));
            await().atMost(TIMEOUT).until(() -> otherLimitStandby.output().contains(
                    "rpc.max-message-size: this job manager 8388608, the leader " + RPC_LIMIT));
            assertThat(otherLimitStandby.process().isAlive()).isTrue();
            assertThat(Rest.leaderRestUrl(otherLimitStandby.restUrl())).contains(leader.restUrl());
            assertUndisturbed();
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    @Test
    @Order(3)
    void aJobGraphAboveTheRpcLimitIsRefusedNamingSizeLimitAndKeyAndTheClusterKeepsServing() throws Exception {
        try {
            Path bigJar = BigTableProgram.jar(dir.resolve("big-program"));
            // The standby with the same limit refuses to send it.
            CommandResult viaStandby = processes.submitJar(bigJar, standby.restUrl(), List.of("--parallelism", "1"),
                    List.of(Integer.toString(TABLE_BYTES)));
            assertThat(viaStandby.exitCode()).as(viaStandby.output()).isEqualTo(2);
            assertThat(viaStandby.output()).containsPattern("the call is \\d{7,} bytes, above the largest RPC message of "
                    + RPC_LIMIT + " bytes; raise rpc.max-message-size");
            // The standby with a larger limit sends it; the leader refuses it on arrival.
            CommandResult viaLarger = processes.submitJar(bigJar, otherLimitStandby.restUrl(), List.of("--parallelism", "1"),
                    List.of(Integer.toString(TABLE_BYTES)));
            assertThat(viaLarger.exitCode()).as(viaLarger.output()).isEqualTo(2);
            assertThat(viaLarger.output()).containsPattern("A request of \\d{7,} bytes reached \\S+, above its largest RPC"
                    + " message of " + RPC_LIMIT + " bytes \\(rpc.max-message-size\\)");
            assertThat(Rest.jobStatus(otherLimitStandby.restUrl(), jobA)).as("its connection to the leader still answers")
                    .isPresent();
            assertUndisturbed();
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    @Test
    @Order(4)
    void aStoredJarThatNoLongerMatchesItsDigestIsRefusedAndTheJobResumesOnceItIsRestored() throws Exception {
        try {
            SluiceProcess first = processes.startTaskManager(Host.MACHINE, 1, Map.of());
            await().atMost(TIMEOUT).until(() -> Rest.registeredSlots(leader.restUrl()) == 3);
            // Through the standby whose earlier, oversized forward was refused: its connection still works.
            Path outputB = dir.resolve("counts-b");
            CommandResult run = processes.submitJar(SluiceCluster.examplesJar(), otherLimitStandby.restUrl(),
                    jobOptions("b", 1), countingArgs(RECORDS_B, RATE_B, outputB));
            assertThat(run.exitCode()).as(run.output()).isZero();
            String jobB = run.jobId();
            await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(leader.restUrl(), jobB) >= 2
                    && !KeyedCounts.highest(outputB).isEmpty());

            Path stored = dir.resolve("ha-storage").resolve(CLUSTER_ID).resolve("jobjars").resolve(jobB + ".jar");
            assertThat(stored).isRegularFile();
            byte[] original = Files.readAllBytes(stored);
            byte[] changed = original.clone();
            changed[changed.length / 2] ^= 1;
            Files.write(stored, changed);

            // B's task manager goes; the next one must fetch the jar from the storage. B runs on the new one-slot
            // task manager while job A fills the other's two slots; if A finished before B started, B may run on
            // A's task manager instead, so the one to kill is the one that loaded B's jar. B restarts on a task
            // manager that has not loaded its jar: the new one, or whichever of the first two it did not run on.
            SluiceProcess holder = await().atMost(TIMEOUT).until(() -> loaderOf(jobB, List.of(first, twoSlotTaskManager)),
                    java.util.Objects::nonNull);
            System.out.printf("MisconfigurationITCase: job B ran on %s (job A %s); killing it%n", holder.name(),
                    Rest.jobStatus(leader.restUrl(), jobA).orElse("?"));
            holder.kill();
            SluiceProcess second = processes.startTaskManager(Host.MACHINE, 1, Map.of());
            String refusal = "has SHA-256 " + sha256(changed) + ", but ZooKeeper";
            String recorded = "records SHA-256 " + sha256(original);
            await().atMost(TIMEOUT).until(() -> Rest.job(leader.restUrl(), jobB).map(JsonNode::toString)
                    .filter(j -> j.contains(refusal) && j.contains(recorded)
                            && j.contains(jobB + ".jar") && j.contains("Restore the original jar")).isPresent());
            List<String> others = new java.util.ArrayList<>();
            for (SluiceProcess tm : List.of(first, twoSlotTaskManager, second)) {
                if (tm != holder) {
                    others.add(tm.log());
                }
            }
            assertThat(others).as("the log of the task manager job B restarted on")
                    .anyMatch(log -> log.contains("could not load the jar of job " + jobB));
            assertThat(Rest.jobStatus(leader.restUrl(), jobB)).isNotEqualTo(java.util.Optional.of("FINISHED"));
            assertUndisturbed();

            Files.write(stored, original);
            await().atMost(Duration.ofSeconds(120)).until(() -> Rest.jobStatus(leader.restUrl(), jobB)
                    .filter("FINISHED"::equals).isPresent());
            KeyedCounts.assertExact(outputB, RECORDS_B, KEYS);
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    @Test
    @Order(5)
    void theJobThatRanThroughItAllEndsWithExactCounts() throws Exception {
        try {
            await().atMost(Duration.ofSeconds(120)).until(() -> Rest.jobStatus(leader.restUrl(), jobA)
                    .filter("FINISHED"::equals).isPresent());
            assertThat(restarts(jobA)).isZero();
            KeyedCounts.assertExact(outputA, RECORDS_A, KEYS);
        } catch (Throwable t) {
            throw new AssertionError(t + processes.diagnostics(), t);
        }
    }

    // ------------------------------------------------------------------ helpers

    /** The leader still leads, and job A runs (or already finished) without a restart. */
    private void assertUndisturbed() {
        assertThat(Rest.isLeader(leader.restUrl())).as("the leader still leads").isTrue();
        assertThat(Rest.jobStatus(leader.restUrl(), jobA)).as("job A").get().isIn("RUNNING", "FINISHED");
        assertThat(restarts(jobA)).as("restarts of job A").isZero();
    }

    /** The task manager among {@code taskManagers} that loaded the jar of {@code jobId} (its log says so), or null. */
    private static SluiceProcess loaderOf(String jobId, List<SluiceProcess> taskManagers) throws java.io.IOException {
        for (SluiceProcess tm : taskManagers) {
            if (tm.log().contains("Loaded the jar of job " + jobId)) {
                return tm;
            }
        }
        return null;
    }

    private int restarts(String jobId) {
        return Rest.job(leader.restUrl(), jobId).orElseThrow().path("restarts").path("count").asInt(-1);
    }

    private List<String> jobOptions(String name, int parallelism) {
        return List.of("--parallelism", Integer.toString(parallelism), "-D", "checkpoints.interval=300 ms",
                "-D", "checkpoints.dir=" + dir.resolve("checkpoints-" + name));
    }

    private static List<String> countingArgs(long records, int rate, Path output) {
        return List.of("--records", Long.toString(records), "--keys", Integer.toString(KEYS), "--rate",
                Integer.toString(rate), "--output", output.toString());
    }

    private static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
