package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.jar.TestJars;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The final checkpoint of a bounded job with the exactly-once file sink, across processes (issue 20):
 * one job manager (ZooKeeper HA in this JVM) and three task managers of one slot each, a bounded job of
 * parallelism 2 ({@link #JOB}: a gated source chained to {@code writeAsTextExactlyOnce}, so each subtask
 * is one task on a task manager of its own), checkpoints every 300 ms.
 *
 * <p>Subtask 0's input ends while subtask 1 is held (its task thread stalls at a gate file, so no
 * checkpoint can complete): subtask 0 sits in "awaiting final checkpoint", seen through REST. Then one
 * task manager is SIGKILLed:
 * <ul>
 *   <li>{@link #aFinishedSubtasksOutputIsNotWrittenAgainWhenTheStillRunningSubtasksTaskManagerIsKilled}:
 *       the stall is released, the final checkpoint completes, subtask 0 commits and FINISHES while subtask 1
 *       still runs (waiting softly at a second gate, checkpoints going on); then subtask 1's task manager is
 *       killed. A sink that committed its last output without a final checkpoint, or a restore of a checkpoint
 *       in which subtask 0 still ran, writes subtask 0's tail a second time.</li>
 *   <li>{@link #anAwaitingSubtasksUncommittedOutputBecomesVisibleOnceWhenItsTaskManagerIsKilled}: the task
 *       manager of the awaiting subtask 0 is killed while it waits: its pre-committed last output must
 *       never show, and its replay must show once.</li>
 * </ul>
 * Either way the job runs again on the remaining task managers and FINISHES, every number is in exactly one
 * committed part file, and no in-progress file is left.
 */
class FinalCheckpointProcessesITCase {
    /** Records per subtask: subtask s emits s, s + 2, s + 4, ... (about 2 s of input at 1000 records/s). */
    private static final long PER_SUBTASK = 2_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    /**
     * {@code <per subtask> <output dir> <gate dir>}: numbers 0 .. 2 × per - 1 from a source of parallelism 2
     * into {@code writeAsTextExactlyOnce(output)}, at about 1000 records/s per subtask. Each reader writes
     * {@code gates/subtask-<s>.<pid>} when created (where it runs). After half its records subtask 1 waits
     * until {@code gates/release} exists, and its task thread stalls in the first checkpoint it takes meanwhile
     * (writing {@code gates/stalled}): that checkpoint and every later one cannot complete, while the earlier
     * ones did (one checkpoint at a time). After three quarters it waits without stalling (checkpoints go on)
     * until {@code gates/finish} exists. Subtask 0 ends its input only once {@code gates/stalled} exists.
     */
    private static final String JOB = """
            package userjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.Collector;
            import io.sluice.api.source.Source;
            import io.sluice.api.source.SourceReader;
            import io.sluice.core.serialization.DataInputBuffer;
            import io.sluice.core.serialization.DataOutputBuffer;
            import io.sluice.core.serialization.Serializers;
            import io.sluice.core.serialization.TypeSerializer;
            import java.nio.file.Files;
            import java.nio.file.Path;
            import java.util.concurrent.TimeUnit;
            import java.util.concurrent.locks.LockSupport;

            public final class GatedNumbersJob {
                public record GatedNumbers(long perSubtask, String gates) implements Source<Long> {
                    @Override public SourceReader<Long> createReader(int subtask, int parallelism) throws Exception {
                        Path dir = Path.of(gates);
                        Files.writeString(dir.resolve("subtask-" + subtask + "." + ProcessHandle.current().pid()), "");
                        return new Reader(perSubtask, dir, subtask, parallelism);
                    }
                    @Override public boolean isBounded() { return true; }
                    @Override public TypeSerializer<Long> serializer() { return Serializers.LONG; }
                }

                static final class Reader implements SourceReader<Long> {
                    private final long per;
                    private final Path gates;
                    private final int subtask;
                    private final int parallelism;
                    private long emitted;

                    Reader(long per, Path gates, int subtask, int parallelism) {
                        this.per = per;
                        this.gates = gates;
                        this.subtask = subtask;
                        this.parallelism = parallelism;
                    }

                    @Override public int emit(Collector<Long> out, int maxRecords) throws Exception {
                        if (emitted == per) {
                            if (subtask == 0 && !Files.exists(gates.resolve("stalled"))) {
                                LockSupport.parkNanos(5_000_000); // ends only once subtask 1 stalls
                                return 0;
                            }
                            return END_OF_INPUT;
                        }
                        if (subtask == 1 && emitted == per / 2 && !Files.exists(gates.resolve("release"))) {
                            LockSupport.parkNanos(5_000_000); // until the next barrier, which stalls
                            return 0;
                        }
                        if (subtask == 1 && emitted == per * 3 / 4 && !Files.exists(gates.resolve("finish"))) {
                            LockSupport.parkNanos(5_000_000); // waits, but returns: checkpoints go on
                            return 0;
                        }
                        long until = subtask == 1 && emitted < per / 2 ? per / 2
                                : subtask == 1 && emitted < per * 3 / 4 ? per * 3 / 4 : per;
                        int n = 0;
                        while (n < 10 && n < maxRecords && emitted < until) {
                            out.collect(subtask + parallelism * emitted++);
                            n++;
                        }
                        LockSupport.parkNanos(10_000_000);
                        return n;
                    }

                    @Override public byte[] snapshotPosition(long checkpointId) {
                        if (subtask == 1 && emitted == per / 2) {
                            try {
                                Files.writeString(gates.resolve("stalled"), Long.toString(checkpointId));
                                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                                while (!Files.exists(gates.resolve("release")) && System.nanoTime() < deadline) {
                                    Thread.sleep(5); // the task thread stalls in this checkpoint: none completes
                                }
                            } catch (Exception e) {
                                throw new IllegalStateException("stall of subtask 1 in checkpoint " + checkpointId, e);
                            }
                        }
                        return snapshotPosition();
                    }

                    @Override public byte[] snapshotPosition() {
                        DataOutputBuffer b = new DataOutputBuffer(8);
                        b.writeLong(emitted);
                        return b.toByteArray();
                    }

                    @Override public void restorePosition(byte[] position) {
                        emitted = new DataInputBuffer(position).readLong();
                    }
                }

                public static void main(String[] args) throws Exception {
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    env.fromSource(new GatedNumbers(Long.parseLong(args[0]), args[2]), "gated numbers")
                            .writeAsTextExactlyOnce(args[1]);
                    env.execute("gated numbers");
                }
            }
            """;

    @TempDir
    Path dir;

    /** Which task manager the test kills. */
    private enum Victim { STILL_RUNNING_AFTER_THE_OTHER_FINISHED, AWAITING_FINAL_CHECKPOINT }

    @Test
    void aFinishedSubtasksOutputIsNotWrittenAgainWhenTheStillRunningSubtasksTaskManagerIsKilled() throws Exception {
        run(Victim.STILL_RUNNING_AFTER_THE_OTHER_FINISHED);
    }

    @Test
    void anAwaitingSubtasksUncommittedOutputBecomesVisibleOnceWhenItsTaskManagerIsKilled() throws Exception {
        run(Victim.AWAITING_FINAL_CHECKPOINT);
    }

    private void run(Victim victim) throws Exception {
        try (TestingServer zooKeeper = TestingZooKeeper.start(dir)) {
            Map<String, String> common = SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "final-checkpoint",
                    dir.resolve("ha-storage"));
            try (SluiceCluster cluster = new SluiceCluster(dir, common)) {
                try {
                    run(cluster, victim);
                } catch (Throwable t) {
                    throw new AssertionError(t + cluster.diagnostics(), t);
                }
            }
        }
    }

    private void run(SluiceCluster cluster, Victim victim) throws Exception {
        String name = getClass().getSimpleName() + " (" + victim + ")";
        SluiceProcess launched = cluster.launchJobManager(Host.MACHINE, Map.of());
        List<SluiceProcess> taskManagers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            taskManagers.add(cluster.startTaskManager(Host.MACHINE, 1, Map.of()));
        }
        String jm = cluster.awaitServing(launched).restUrl();
        await().atMost(TIMEOUT).until(() -> Rest.isLeader(jm) && Rest.registeredSlots(jm) == 3);

        Path output = dir.resolve("output");
        Path gates = Files.createDirectories(dir.resolve("gates"));
        Path jar = TestJars.jar(Files.createDirectories(dir.resolve("jars")), "gated-numbers.jar",
                "userjob.GatedNumbersJob", Map.of("userjob.GatedNumbersJob", JOB));
        CommandResult submitted = cluster.submitJar(jar, jm, List.of("--parallelism", "2",
                        "-D", "checkpoints.interval=300ms", "-D", "checkpoints.dir=" + dir.resolve("checkpoints"),
                        "-D", "restart-strategy=fixed-delay", "-D", "restart-strategy.fixed-delay.attempts=10",
                        "-D", "restart-strategy.fixed-delay.delay=100ms"),
                List.of(Long.toString(PER_SUBTASK), output.toString(), gates.toString()));
        assertThat(submitted.exitCode()).as(submitted.output()).isZero();
        String jobId = submitted.jobId();

        // Subtask 0 ended its input and waits for its final checkpoint; subtask 1 is stalled, still running.
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> subtasks(jm, jobId),
                s -> s.size() == 2 && s.get(0).path("awaitingFinalCheckpoint").asBoolean()
                        && s.get(1).path("state").asText().equals("RUNNING")
                        && !s.get(1).path("awaitingFinalCheckpoint").asBoolean());
        long latestWhileAwaiting = latestCompletedCheckpoint(jm, jobId);
        assertThat(latestWhileAwaiting).as("a checkpoint completed before subtask 0's input ended").isPositive();
        assertThat(restarts(jm, jobId)).as("restarts before the kill").isZero();
        Map<Long, Long> whileAwaiting = committed(output);
        assertThat(whileAwaiting.values()).as("numbers committed twice").allMatch(n -> n == 1);
        long evens = whileAwaiting.keySet().stream().filter(v -> v % 2 == 0).count();
        System.out.println(name + ": subtask 0 awaits its final checkpoint; latest completed checkpoint "
                + latestWhileAwaiting + "; committed: " + evens + " numbers of subtask 0, "
                + (whileAwaiting.size() - evens) + " of subtask 1");
        assertThat(evens).as("subtask 0's last output is not visible before its final checkpoint").isLessThan(PER_SUBTASK);

        SluiceProcess killed;
        long restoredAtLeast;
        if (victim == Victim.STILL_RUNNING_AFTER_THE_OTHER_FINISHED) {
            Files.writeString(gates.resolve("release"), "");
            await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> subtasks(jm, jobId),
                    s -> s.size() == 2 && s.get(0).path("state").asText().equals("FINISHED")
                            && s.get(1).path("state").asText().equals("RUNNING"));
            // subtask 0's final checkpoint (or a later one) completed: the restore must not go behind it
            long latest = latestCompletedCheckpoint(jm, jobId);
            assertThat(latest).as("subtask 0's final checkpoint completed").isGreaterThan(latestWhileAwaiting);
            restoredAtLeast = latest;
            Map<Long, Long> beforeKill = committed(output);
            assertThat(beforeKill.keySet().stream().filter(v -> v % 2 == 0).count())
                    .as("subtask 0 committed all its output before it finished").isEqualTo(PER_SUBTASK);
            killed = runnerOf(1, gates, taskManagers);
        } else {
            restoredAtLeast = latestWhileAwaiting; // nothing completes while subtask 1 stalls
            killed = runnerOf(0, gates, taskManagers);
        }
        long killedAt = System.currentTimeMillis();
        killed.kill();
        // The gates open only once the job fails over, so that nothing the stall held back completes before.
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(20)).until(() -> restarts(jm, jobId) >= 1);
        long failedOver = System.currentTimeMillis() - killedAt;
        Files.writeString(gates.resolve("release"), "");
        Files.writeString(gates.resolve("finish"), "");
        System.out.println(name + ": SIGKILLed " + killed.name() + " (pid " + killed.process().pid() + ") at "
                + java.time.Instant.ofEpochMilli(killedAt) + "; the job failed over " + failedOver + " ms later");

        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> Rest.jobStatus(jm, jobId).filter("FINISHED"::equals).isPresent());
        long finished = System.currentTimeMillis() - killedAt;
        int restarts = restarts(jm, jobId);
        long restored = Rest.restoredCheckpoint(jm, jobId);
        System.out.println(name + ": FINISHED " + finished + " ms after the kill; restarts " + restarts
                + ", restored checkpoint " + restored + " (latest completed while subtask 0 awaited its final"
                + " checkpoint: " + latestWhileAwaiting + ")");
        assertThat(restarts).as("the job restarted after the kill").isPositive();
        assertThat(restored).as("the checkpoint the restart restored").isGreaterThanOrEqualTo(restoredAtLeast);
        long writersOfSubtask0 = writersOf(0, output);
        System.out.println(name + ": subtask 0's committed part files come from " + writersOfSubtask0 + " writer(s)");
        if (victim == Victim.AWAITING_FINAL_CHECKPOINT) {
            assertThat(restored).as("restored a checkpoint taken before subtask 0's input ended: its tail is replayed")
                    .isEqualTo(latestWhileAwaiting);
            assertThat(writersOfSubtask0).as("subtask 0's replayed tail committed by the writer of its new attempt")
                    .isEqualTo(2);
        } else {
            assertThat(writersOfSubtask0).as("subtask 0's output committed by its first writer only").isEqualTo(1);
        }

        assertExactlyOnce(output);
    }

    /** Every number 0 .. 2 × PER_SUBTASK - 1 in exactly one committed part file, and nothing else in the directory. */
    private static void assertExactlyOnce(Path output) throws IOException {
        List<String> names;
        try (Stream<Path> files = Files.list(output)) {
            names = files.map(p -> p.getFileName().toString()).sorted().toList();
        }
        assertThat(names).as("only committed part files, no in-progress file left").allMatch(n -> n.matches(
                "part-[01]-[0-9a-f]{8}-\\d+"));
        Map<Long, Long> counts = committed(output);
        Map<Long, Long> duplicates = new TreeMap<>();
        counts.forEach((v, n) -> {
            if (n > 1) {
                duplicates.put(v, n);
            }
        });
        List<Long> missing = new ArrayList<>();
        for (long v = 0; v < 2 * PER_SUBTASK; v++) {
            if (!counts.containsKey(v)) {
                missing.add(v);
            }
        }
        System.out.println("FinalCheckpointProcessesITCase: " + names.size() + " part files, " + counts.size()
                + " distinct numbers, " + duplicates.size() + " duplicated, " + missing.size() + " missing");
        assertThat(duplicates).as("numbers committed more than once").isEmpty();
        assertThat(missing).as("numbers never committed").isEmpty();
        assertThat(counts).as("nothing but the expected numbers").hasSize((int) (2 * PER_SUBTASK));
    }

    /** The distinct writers (part-<subtask>-<writer>-<n>) of the committed part files of {@code subtask}. */
    private static long writersOf(int subtask, Path output) throws IOException {
        try (Stream<Path> files = Files.list(output)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("part-" + subtask + "-"))
                    .map(n -> n.split("-")[2]).distinct().count();
        }
    }

    /** How often each number appears in the committed part files (names without the leading dot). */
    private static Map<Long, Long> committed(Path output) throws IOException {
        Map<Long, Long> counts = new HashMap<>();
        if (!Files.isDirectory(output)) {
            return counts;
        }
        try (Stream<Path> files = Files.list(output)) {
            for (Path part : files.filter(p -> !p.getFileName().toString().startsWith(".")).toList()) {
                for (String line : Files.readAllLines(part)) {
                    counts.merge(Long.parseLong(line), 1L, Long::sum);
                }
            }
        }
        return counts;
    }

    /** The subtasks of the job's (single, chained) vertex, or an empty list. */
    private static List<JsonNode> subtasks(String jm, String jobId) {
        List<JsonNode> out = new ArrayList<>();
        Rest.job(jm, jobId).ifPresent(j -> {
            JsonNode vertices = j.path("vertices");
            if (vertices.size() > 0) {
                vertices.get(vertices.size() - 1).path("subtasks").forEach(out::add);
            }
        });
        return out;
    }

    /** The id of the latest checkpoint completed under the current job master, or -1. */
    private static long latestCompletedCheckpoint(String jm, String jobId) {
        return Rest.get(jm, "/v1/jobs/" + jobId + "/checkpoints").filter(a -> a.status() == 200)
                .map(a -> a.body().path("history").path(0).path("id").asLong(-1)).orElse(-1L);
    }

    private static int restarts(String jm, String jobId) {
        return Rest.job(jm, jobId).map(j -> j.path("restarts").path("count").asInt()).orElse(-1);
    }

    /** The task manager whose process created the (first) reader of {@code subtask}. */
    private static SluiceProcess runnerOf(int subtask, Path gates, List<SluiceProcess> taskManagers) throws IOException {
        List<Long> pids;
        try (Stream<Path> files = Files.list(gates)) {
            pids = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("subtask-" + subtask + "."))
                    .map(n -> Long.parseLong(n.substring(n.indexOf('.') + 1))).toList();
        }
        assertThat(pids).as("the processes that ran subtask " + subtask).hasSize(1);
        return taskManagers.stream().filter(p -> p.process().pid() == pids.get(0)).findFirst()
                .orElseThrow(() -> new AssertionError("no task manager has pid " + pids.get(0)));
    }
}
