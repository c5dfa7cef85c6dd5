package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.jar.TestJars;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machine's clock jumps (an NTP step) while event-time windows are pending (a second-day journey), with real
 * processes: a {@code sluice jobmanager} and a {@code sluice taskmanager} under ZooKeeper HA (ZooKeeper in this JVM,
 * as on another machine), both started under libfaketime ({@code LD_PRELOAD}), which offsets their wall clock
 * ({@code System.currentTimeMillis}, {@code Instant.now}) by what a file of the test says and leaves the monotonic
 * clock alone, as a step of the real clock does. The job counts numbers per key in tumbling 1 s event-time windows,
 * the numbers' event time being their own value (10 ms apart), so its results do not depend on the wall clock.
 *
 * <p>While it runs the test steps the clock an hour forward, then two hours back. After each step, proven by the
 * trigger time the job manager gives its next checkpoint, windows keep firing and checkpoints keep completing
 * within seconds: no watermark held until the wall clock catches up, no task manager declared lost, no restart.
 * At the end every window has its exact count, once.
 *
 * <p>Skipped where libfaketime is not installed ({@code scripts/install-test-deps.sh} installs the Debian package
 * {@code libfaketime}).
 */
class ClockStepProcessesITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** Numbers 0..RECORDS-1 at RATE per second: 60 windows of 1 s event time, 30 s of input. */
    private static final int RECORDS = 6_000;
    private static final int RATE = 200;
    private static final int KEYS = 4;
    private static final int WINDOWS = RECORDS / 100;
    private static final Pattern LINE = Pattern.compile("(\\d+),(\\d+),(\\d+)");
    /** An hour, and a margin below it that proves a step took effect. */
    private static final long HOUR_MILLIS = 3_600_000;
    private static final long STEPPED_MILLIS = 50 * 60_000;

    /**
     * {@code <records> <rate> <output>}: numbers 0..records-1 from one source at {@code rate} per second, event time
     * {@code v * 10 ms}, keyed by {@code v % 4}, counted per key in tumbling 1 s event-time windows, one line
     * {@code key,windowStart,count} per window to {@code output}, exactly once.
     */
    private static final String JOB = """
            package userjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.eventtime.TimestampAssigner;
            import io.sluice.api.eventtime.WatermarkStrategy;
            import io.sluice.api.functions.Collector;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.ProcessWindowFunction;
            import io.sluice.api.source.SequenceSource;
            import io.sluice.api.windowing.WindowAssigner;
            import io.sluice.core.serialization.Serializers;
            import java.time.Duration;

            public final class EventTimeWindowsJob {
                public static final class TenMillisApart implements TimestampAssigner<Long> {
                    @Override public long extractTimestamp(Long v, long previous) { return v * 10; }
                }

                public static final class ModKey implements KeySelector<Long, Long> {
                    @Override public Long getKey(Long v) { return v % 4; }
                }

                public static final class CountWindow extends ProcessWindowFunction<Long, String, Long> {
                    @Override public void process(Long key, Context context, Iterable<Long> values, Collector<String> out) {
                        int n = 0;
                        for (Long v : values) {
                            n++;
                        }
                        out.collect(key + "," + context.window().start() + "," + n);
                    }
                }

                public static void main(String[] args) throws Exception {
                    long records = Long.parseLong(args[0]);
                    double rate = Double.parseDouble(args[1]);
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    var numbers = env.fromSource(SequenceSource.bounded(0, records - 1).withRate(rate), "numbers");
                    numbers.setParallelism(1);
                    numbers.assignTimestampsAndWatermarks(WatermarkStrategy.<Long>forBoundedOutOfOrderness(
                                    Duration.ofMillis(100)).withTimestampAssigner(new TenMillisApart()))
                            .keyBy(new ModKey())
                            .window(WindowAssigner.tumblingEventTime(Duration.ofSeconds(1)))
                            .process(new CountWindow())
                            .returns(Serializers.STRING)
                            .writeAsTextExactlyOnce(args[2]);
                    env.execute("event-time windows through clock steps");
                }
            }
            """;

    @TempDir
    Path dir;

    private static Path libfaketime;

    @BeforeAll
    static void libfaketimeInstalled() throws IOException {
        libfaketime = findLibfaketime().orElse(null);
        assumeTrue(libfaketime != null, "skipped: libfaketime is not installed here (Debian package libfaketime;"
                + " scripts/install-test-deps.sh installs it)");
    }

    @Test
    void eventTimeWindowsFireAndCheckpointsCompleteThroughClockStepsForwardAndBackWithExactCounts() throws Exception {
        Path offset = dir.resolve("clock-offset");
        setOffset(offset, 0);
        Host machine = steppedBy(offset);
        Path jar = TestJars.jar(Files.createDirectories(dir.resolve("jar")), "event-time-windows.jar",
                "userjob.EventTimeWindowsJob", Map.of("userjob.EventTimeWindowsJob", JOB));
        SluiceCluster.underZooKeeper(dir, "clock-steps", Map.of("checkpoints.dir", dir.resolve("checkpoints").toString(),
                "checkpoints.interval", "500 ms"), cluster -> run(cluster, machine, offset, jar));
    }

    private void run(SluiceCluster cluster, Host machine, Path offset, Path jar) throws Exception {
        SluiceProcess jobManager = cluster.launchJobManager(machine, Map.of());
        cluster.startTaskManager(machine, 2, Map.of());
        String url = cluster.awaitServing(jobManager).restUrl();
        await("leader with 2 slots").atMost(TIMEOUT).until(() -> Rest.isLeader(url) && Rest.registeredSlots(url) == 2);

        Path output = dir.resolve("windows");
        SluiceCluster.CommandResult submitted = cluster.submitJar(jar, url, List.of("--parallelism", "2"),
                List.of(Integer.toString(RECORDS), Integer.toString(RATE), output.toString()));
        assertThat(submitted.exitCode()).as("sluice run:\n" + submitted.output()).isZero();
        String job = submitted.jobId();
        await("windows and checkpoints before the steps").atMost(TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> Rest.completedCheckpoints(url, job) >= 2 && windowLines(output).size() >= 2 * KEYS);

        setOffset(offset, HOUR_MILLIS);
        awaitProgressAfterStep(url, job, output, "an hour forward", ts -> ts >= System.currentTimeMillis()
                + STEPPED_MILLIS);
        setOffset(offset, -HOUR_MILLIS);
        awaitProgressAfterStep(url, job, output, "two hours back", ts -> ts <= System.currentTimeMillis()
                - STEPPED_MILLIS);

        await(job + " finished").atMost(TIMEOUT).pollInterval(Duration.ofMillis(200))
                .until(() -> Rest.jobStatus(url, job).filter("FINISHED"::equals).isPresent());
        JsonNode finished = Rest.job(url, job).orElseThrow();
        assertThat(finished.path("restarts").path("count").asInt()).as("restarts of " + job).isZero();
        assertExactWindows(windowLines(output));
        System.out.println("ClockStepProcessesITCase: " + job + " FINISHED after the steps with " + WINDOWS * KEYS
                + " exact windows, 0 restarts, checkpoints " + finished.path("checkpoints").path("completed"));
    }

    /**
     * After the clock was stepped: waits until the job manager triggers a checkpoint at a time {@code stepped}
     * accepts (the step took effect in its process), then until three more checkpoints complete and two more
     * windows of every key are written, each within seconds, the job RUNNING with no restart and the task manager
     * still registered.
     */
    private static void awaitProgressAfterStep(String url, String job, Path output, String step,
            java.util.function.LongPredicate stepped) throws Exception {
        await("a checkpoint triggered on the clock stepped " + step).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100)).until(() -> latestTriggerMillis(url, job).stream()
                        .anyMatch(stepped::test));
        long checkpoints = Rest.completedCheckpoints(url, job);
        int windows = windowLines(output).size();
        await("three more checkpoints after the step " + step).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100)).until(() -> Rest.completedCheckpoints(url, job) >= checkpoints + 3);
        await("two more windows of every key after the step " + step).atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100)).until(() -> windowLines(output).size() >= windows + 2 * KEYS);
        JsonNode status = Rest.job(url, job).orElseThrow();
        assertThat(status.path("status").asText()).as(job + " after the step " + step).isEqualTo("RUNNING");
        assertThat(status.path("restarts").path("count").asInt()).as("restarts after the step " + step).isZero();
        assertThat(Rest.registeredSlots(url)).as("slots registered after the step " + step).isEqualTo(2);
        System.out.println("ClockStepProcessesITCase: clock stepped " + step + ": checkpoints " + checkpoints + " -> "
                + Rest.completedCheckpoints(url, job) + ", window lines " + windows + " -> "
                + windowLines(output).size() + ", latest trigger " + latestTriggerMillis(url, job) + " (this JVM: "
                + System.currentTimeMillis() + ")");
    }

    /** The trigger time of the job's latest completed checkpoint, as its job manager's clock gave it. */
    private static Optional<Long> latestTriggerMillis(String url, String job) {
        return Rest.get(url, "/v1/jobs/" + job + "/checkpoints").filter(a -> a.status() == 200)
                .map(a -> a.body().path("history").path(0).path("triggerTimestampMillis"))
                .filter(JsonNode::isNumber).map(JsonNode::asLong);
    }

    /** Every window's line in the committed part files: {@code [key, windowStart, count]}. */
    private static List<long[]> windowLines(Path output) throws IOException {
        List<long[]> lines = new ArrayList<>();
        if (!Files.isDirectory(output)) {
            return lines;
        }
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.filter(p -> p.getFileName().toString().startsWith("part-")).toList()) {
                for (String line : Files.readAllLines(part)) {
                    Matcher m = LINE.matcher(line);
                    assertThat(m.matches()).as("a window line of " + part + ": " + line).isTrue();
                    lines.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                            Long.parseLong(m.group(3))});
                }
            }
        }
        return lines;
    }

    /** One line per key and window of 1 s, each with the window's 25 numbers of that key. */
    private static void assertExactWindows(List<long[]> lines) {
        Map<String, Long> counts = new TreeMap<>();
        for (long[] l : lines) {
            Long before = counts.put(l[0] + "@" + l[1], l[2]);
            assertThat(before).as("window " + l[1] + " of key " + l[0] + " written once").isNull();
        }
        Map<String, Long> expected = new TreeMap<>();
        for (int w = 0; w < WINDOWS; w++) {
            for (int k = 0; k < KEYS; k++) {
                expected.put(k + "@" + w * 1000L, 100L / KEYS);
            }
        }
        assertThat(counts).as("every window's count").isEqualTo(expected);
    }

    /** The machine's clock as {@code offset} says, for every process started on it. */
    private static Host steppedBy(Path offset) {
        return new Host("127.0.0.1", command -> {
            List<String> wrapped = new ArrayList<>(List.of("env", "LD_PRELOAD=" + libfaketime,
                    "FAKETIME_TIMESTAMP_FILE=" + offset, "FAKETIME_CACHE_DURATION=1",
                    // The step moves the wall clock only; waits on the monotonic clock stay as they are.
                    "FAKETIME_DONT_FAKE_MONOTONIC=1", "FAKETIME_FORCE_MONOTONIC_FIX=0", "NO_FAKE_STAT=1"));
            wrapped.addAll(command);
            return wrapped;
        });
    }

    /** Steps the clock of every process started by {@link #steppedBy} to the real time plus {@code millis}. */
    private static void setOffset(Path offset, long millis) throws IOException {
        Path next = offset.resolveSibling(offset.getFileName() + ".next");
        Files.writeString(next, (millis < 0 ? "" : "+") + millis / 1000 + "\n");
        Files.move(next, offset, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static Optional<Path> findLibfaketime() throws IOException {
        try (Stream<Path> dirs = Files.list(Path.of("/usr/lib"))) {
            return dirs.map(d -> d.resolve("faketime/libfaketime.so.1")).filter(Files::isRegularFile).findFirst();
        }
    }
}
