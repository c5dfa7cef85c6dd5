package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.jar.TestJars;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A heap keyed state larger than the 64 MiB that a checkpoint's snapshot may take in memory, across
 * processes: the task manager serializes it to a local file while it writes it ({@code
 * SpillingSnapshotOutput}) and streams that file to checkpoint storage; the task manager is SIGKILLed,
 * and a task manager in another JVM restores the spilled state file from storage, exactly. ZooKeeper in
 * this JVM, a {@code sluice jobmanager} and two {@code sluice taskmanager}s of one slot (heap 640 MiB
 * each) run {@link #JOB} at parallelism 1 (the whole job in one slot, so the other task manager stands by):
 * a paced count per key over {@value #KEYS} keys, each key also holding a {@value #PAD_CHARS}-character
 * string made from its key and count: one subtask's snapshot passes 64 MiB after about 17,500 keys (about 82 MB
 * with all of them).
 *
 * <p>It proves: a completed checkpoint's state file is larger than 64 MiB (so its snapshot spilled; a
 * smaller one stays in memory), the task manager running the job is SIGKILLed before the end of the input,
 * the job runs again on the other task manager restored from such a checkpoint, every restored padding
 * string is the one its key's restored count says ({@link #JOB} writes a {@code corrupt} line otherwise),
 * and every key's final count is exact (none missing, none doubled).
 *
 * <p>Threads: the test thread starts the processes, submits the job, polls the job manager's REST API and
 * the checkpoint directory (Awaitility, bounded), kills and reads the output; the processes do the rest.
 */
class SpilledSnapshotProcessesITCase {
    /** The size above which a snapshot spills ({@code SubtaskCheckpointer.Spill.DEFAULT_THRESHOLD}). */
    private static final long SPILL_THRESHOLD = 64L * 1024 * 1024;
    /** More than a state file's header, so that a file above the threshold by this much holds a spilled payload. */
    private static final long HEADER_MARGIN = 4096;
    private static final int KEYS = 20_000;
    private static final int PAD_CHARS = 4_096;
    /** Three records per key, at {@link #RATE}: 20 s of input, every key in state after the first 6.7 s. */
    private static final long RECORDS = 3L * KEYS;
    private static final int RATE = 3_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern CHECKPOINT_DIR = Pattern.compile("chk-(\\d+)");

    /**
     * {@code <records> <keys> <pad chars> <rate> <output>}: numbers 0..records-1 at {@code rate} per second,
     * keyed by {@code v % keys}, counted per key in a ValueState next to a ValueState holding the key's padding
     * string for that count ({@code pad(key, count)}; a String, so that a checkpoint's copy of the table shares
     * it); writes {@code key,count}, or {@code corrupt,key,count} when the padding read from state is not the
     * one of the count read with it.
     */
    private static final String JOB = """
            package userjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.functions.RichFunction;
            import io.sluice.api.functions.RuntimeContext;
            import io.sluice.api.source.SequenceSource;
            import io.sluice.api.state.ValueState;
            import io.sluice.api.state.ValueStateDescriptor;
            import io.sluice.core.serialization.Serializers;

            public final class PaddedCountJob {
                public static final class ModKey implements KeySelector<Long, Long> {
                    private final long keys;
                    public ModKey(long keys) { this.keys = keys; }
                    @Override public Long getKey(Long v) { return v % keys; }
                }

                static String pad(long key, long count, int chars) {
                    String head = key + ":" + count + ":";
                    return head + String.valueOf((char) ('a' + (key * 31 + count) % 26)).repeat(chars - head.length());
                }

                public static final class Count implements MapFunction<Long, String>, RichFunction {
                    private final long keys;
                    private final int chars;
                    private transient ValueState<Long> count;
                    private transient ValueState<String> pad;
                    public Count(long keys, int chars) { this.keys = keys; this.chars = chars; }
                    @Override public void open(RuntimeContext context) {
                        count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
                        pad = context.getState(new ValueStateDescriptor<>("pad", Serializers.STRING));
                    }
                    @Override public String map(Long v) {
                        long key = v % keys;
                        Long c = count.value();
                        String p = pad.value();
                        boolean intact = c == null ? p == null : pad(key, c, chars).equals(p);
                        long next = c == null ? 1 : c + 1;
                        count.update(next);
                        pad.update(pad(key, next, chars));
                        return (intact ? "" : "corrupt,") + key + "," + next;
                    }
                }

                public static void main(String[] args) throws Exception {
                    long records = Long.parseLong(args[0]);
                    long keys = Long.parseLong(args[1]);
                    int chars = Integer.parseInt(args[2]);
                    double rate = Double.parseDouble(args[3]);
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    env.fromSource(SequenceSource.bounded(0, records - 1).withRate(rate), "numbers")
                            .keyBy(new ModKey(keys)).map(new Count(keys, chars)).name("padded count per key")
                            .writeAsTextAtLeastOnce(args[4]);
                    env.execute("padded keyed counting");
                }
            }
            """;

    @TempDir
    Path dir;

    @Test
    void aSpilledHeapSnapshotLargerThan64MiBIsRestoredExactlyByAnotherTaskManagerAfterASigkill() throws Exception {
        SluiceCluster.underZooKeeper(dir, "spilled-snapshot", Map.of("checkpoints.dir",
                dir.resolve("checkpoints").toString(), "checkpoints.interval", "1 s", "state.backend", "heap"), this::run);
    }

    private void run(SluiceCluster cluster) throws Exception {
        long start = System.currentTimeMillis();
        SluiceProcess launched = cluster.launchJobManager(Host.MACHINE, Map.of());
        List<SluiceProcess> taskManagers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            // The state and the snapshot's in-memory part (up to 64 MiB, in a buffer that doubles) fit; the spill
            // file goes to this test's directory.
            Path tmp = Files.createDirectories(dir.resolve("tmp-" + i));
            taskManagers.add(cluster.startTaskManager(Host.MACHINE, 1, Map.of(),
                    List.of("-Xmx640m", "-Djava.io.tmpdir=" + tmp)));
        }
        String jm = cluster.awaitServing(launched).restUrl();
        await().atMost(TIMEOUT).until(() -> Rest.isLeader(jm) && Rest.registeredSlots(jm) == 2);

        Path output = dir.resolve("counts");
        Path jar = TestJars.jar(Files.createDirectories(dir.resolve("jar")), "padded-count.jar",
                "userjob.PaddedCountJob", Map.of("userjob.PaddedCountJob", JOB));
        CommandResult submitted = cluster.submitJar(jar, jm, List.of("--parallelism", "1"), List.of(
                Long.toString(RECORDS), Integer.toString(KEYS), Integer.toString(PAD_CHARS), Integer.toString(RATE),
                output.toString()));
        assertThat(submitted.exitCode()).as("sluice run:\n" + submitted.output()).isZero();
        String jobId = submitted.jobId();
        Path checkpoints = dir.resolve("checkpoints").resolve(jobId);

        // Completed checkpoints (with _metadata) by id, and the size of their state file, as seen while they exist.
        Map<Long, Long> stateFiles = new TreeMap<>();
        String spill = "a completed checkpoint whose state file is above 64 MiB (its snapshot spilled)";
        await(spill).atMost(TIMEOUT).pollInterval(Duration.ofMillis(100)).until(() -> {
            stateFiles.putAll(completedStateFiles(checkpoints));
            return stateFiles.values().stream().anyMatch(SpilledSnapshotProcessesITCase::spilled);
        });
        long firstSpilled = stateFiles.entrySet().stream().filter(e -> spilled(e.getValue())).findFirst().orElseThrow()
                .getKey();
        System.out.printf("SpilledSnapshotProcessesITCase: checkpoint %d's state file holds %,d bytes (spill threshold"
                + " %,d), %d ms after the start; state files seen: %s%n", firstSpilled, stateFiles.get(firstSpilled),
                SPILL_THRESHOLD, System.currentTimeMillis() - start, stateFiles);

        assertThat(Rest.jobStatus(jm, jobId)).as("killed while it runs").contains("RUNNING");
        SluiceProcess victim = FailoverTimesBenchmark.busyTaskManager(jm, taskManagers);
        long killed = System.currentTimeMillis();
        victim.kill();
        long countedBeforeKill = KeyedCounts.highest(output).values().stream().mapToLong(Long::longValue).sum();
        System.out.println("SpilledSnapshotProcessesITCase: SIGKILLed " + victim.name() + " after counting "
                + countedBeforeKill + " of " + RECORDS + " records");
        assertThat(countedBeforeKill).as("the task manager was killed before the end of the input").isLessThan(RECORDS);

        // Until it runs again, the checkpoint it restores is on disk (three are retained).
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(50)).until(() -> {
            boolean running = Rest.restoredCheckpoint(jm, jobId) > 0
                    && Rest.jobStatus(jm, jobId).filter("RUNNING"::equals).isPresent();
            stateFiles.putAll(completedStateFiles(checkpoints)); // after: the restored one is seen by the last look
            return running;
        });
        long restored = Rest.restoredCheckpoint(jm, jobId);
        System.out.printf("SpilledSnapshotProcessesITCase: RUNNING again %d ms after the kill, restored from"
                + " checkpoint %d (state file of %,d bytes)%n", System.currentTimeMillis() - killed, restored,
                stateFiles.get(restored));
        assertThat(FailoverTimesBenchmark.busyTaskManager(jm, taskManagers)).as("the task manager running the job now")
                .isNotEqualTo(victim);
        assertThat(stateFiles).as("the restored checkpoint's state file").containsKey(restored);
        assertThat(spilled(stateFiles.get(restored))).as("checkpoint " + restored + " spilled: its state file of "
                + stateFiles.get(restored) + " bytes is above " + SPILL_THRESHOLD).isTrue();

        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(jm, jobId).filter(s -> s.equals("FINISHED") || s.equals("FAILED"))
                        .isPresent());
        assertThat(Rest.jobStatus(jm, jobId)).contains("FINISHED");
        assertThat(Rest.restoredCheckpoint(jm, jobId)).as("no later failover restored another checkpoint")
                .isEqualTo(restored);
        assertThat(corruptLines(output)).as("keys whose restored padding does not match their restored count")
                .isEmpty();
        KeyedCounts.assertExact(output, RECORDS, KEYS);
        System.out.println("SpilledSnapshotProcessesITCase: FINISHED with exact counts of " + KEYS + " keys, "
                + (System.currentTimeMillis() - start) + " ms after the start");
    }

    private static boolean spilled(long stateFileBytes) {
        return stateFileBytes > SPILL_THRESHOLD + HEADER_MARGIN;
    }

    /**
     * The size of the largest {@code .state} file of each checkpoint under {@code checkpoints} that has its
     * {@code _metadata} (complete), by checkpoint id.
     */
    private static Map<Long, Long> completedStateFiles(Path checkpoints) throws IOException {
        Map<Long, Long> out = new TreeMap<>();
        if (!Files.isDirectory(checkpoints)) {
            return out;
        }
        try (Stream<Path> dirs = Files.list(checkpoints)) {
            for (Path chk : dirs.toList()) {
                Matcher m = CHECKPOINT_DIR.matcher(chk.getFileName().toString());
                if (!m.matches() || !Files.exists(chk.resolve("_metadata"))) {
                    continue;
                }
                long largest = -1;
                try (Stream<Path> files = Files.list(chk)) {
                    for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".state")).toList()) {
                        largest = Math.max(largest, Files.size(f));
                    }
                } catch (NoSuchFileException e) {
                    continue; // deleted as a newer one completed
                }
                if (largest >= 0) {
                    out.put(Long.parseLong(m.group(1)), largest);
                }
            }
        }
        return out;
    }

    private static List<String> corruptLines(Path output) throws IOException {
        List<String> out = new ArrayList<>();
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.toList()) {
                Files.readAllLines(part).stream().filter(l -> l.startsWith("corrupt")).forEach(out::add);
            }
        }
        return out;
    }
}
