package io.sluice.e2e;

import static io.sluice.e2e.KeyedCounts.lowest;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.jar.TestJars;
import io.sluice.storage.s3.S3ProxyServer;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * Savepoints across separate processes (issue 21), as a user takes them on the second day: ZooKeeper in
 * this JVM, a {@code sluice jobmanager} and two {@code sluice taskmanager}s of one slot each run {@link #JOB}
 * (a keyed count, its source at parallelism 2) at parallelism 2, with checkpoints on a shared directory. In
 * this order:
 * <ol>
 *   <li>{@code sluice savepoint} while it runs (exit 0, the printed directory holds {@code _metadata}, the
 *       job keeps RUNNING, {@code sluice savepoints} lists it), {@code sluice stop --savepoint} (CANCELED,
 *       a second savepoint), every process SIGKILLed; the second savepoint moved elsewhere and run with
 *       {@code sluice run --restore-from <moved> --parallelism 3} on a new cluster (new JVMs, another
 *       ZooKeeper cluster id, task managers of two slots): FINISHED with exact counts per key, continued
 *       from the savepoint's counts;</li>
 *   <li>on that new cluster, a copy of the first savepoint run at parallelism 3 with the source at 3 too (its
 *       positions redistributed from 2 readers to 3), then {@code sluice rescale <job> 1} (from 3 readers to
 *       1): the old job CANCELED, the new one FINISHED, exact;</li>
 *   <li>{@code sluice run --restore-from} a directory that is no savepoint: exit 2 naming it, the
 *       directory untouched; and with a source that does not redistribute its positions at another
 *       parallelism: exit 2, the savepoint untouched.</li>
 * </ol>
 * Then two journeys on clusters of their own: a RocksDB job resumed from its latest checkpoint at half its
 * parallelism on new processes, and a RocksDB job's savepoint on S3 (S3Proxy in this JVM) moved to another prefix
 * and restored on the heap at another parallelism on new processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SavepointProcessesITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final long RECORDS = 6_000;
    private static final int KEYS = 8;
    /**
     * Records/s of every job that is stopped, cancelled or killed before the end of its input: 60 s of input, so
     * that on a loaded machine the savepoint or cancel still comes first (at 300/s a CI run, its two cores shared with
     * a build, saw the first job FINISHED before {@code sluice stop}).
     */
    private static final int FIRST_RATE = 100;
    private static final Pattern WRITTEN_TO = Pattern.compile("Savepoint (\\d+) of job \\S+ written to (\\S+) \\(");
    private static final Pattern SUBMITTED = Pattern.compile("Job ([0-9a-f]{32}) submitted");

    /**
     * {@code <records> <rate> <output> [source parallelism] [fixed]}: numbers 0..records-1 (at {@code rate} per
     * second, 0 unlimited) from a source of parallelism 2 (or the one given; 0: the job's), keyed by {@code v % 8},
     * counted per key in a ValueState at the job's parallelism, {@code key,count} lines to {@code output}. With
     * {@code fixed}, the source is wrapped in one that does not redistribute its positions.
     */
    private static final String JOB = """
            package userjob;

            import io.sluice.api.StreamExecutionEnvironment;
            import io.sluice.api.functions.KeySelector;
            import io.sluice.api.functions.MapFunction;
            import io.sluice.api.functions.RichFunction;
            import io.sluice.api.functions.RuntimeContext;
            import io.sluice.api.source.SequenceSource;
            import io.sluice.api.source.Source;
            import io.sluice.api.source.SourceReader;
            import io.sluice.api.state.ValueState;
            import io.sluice.api.state.ValueStateDescriptor;
            import io.sluice.core.serialization.Serializers;

            public final class FixedSourceCountJob {
                public static final class ModKey implements KeySelector<Long, Long> {
                    @Override public Long getKey(Long v) { return v % 8; }
                }

                public static final class Count implements MapFunction<Long, String>, RichFunction {
                    private transient ValueState<Long> count;
                    @Override public void open(RuntimeContext context) {
                        count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
                    }
                    @Override public String map(Long v) {
                        Long c = count.value();
                        long next = c == null ? 1 : c + 1;
                        count.update(next);
                        return v % 8 + "," + next;
                    }
                }

                /** A source that keeps its positions per subtask index, as a user's own source does by default. */
                public static final class FixedPositions implements Source<Long> {
                    private final Source<Long> inner;
                    FixedPositions(Source<Long> inner) { this.inner = inner; }
                    @Override public SourceReader<Long> createReader(int subtask, int parallelism) throws Exception {
                        return inner.createReader(subtask, parallelism);
                    }
                    @Override public boolean isBounded() { return inner.isBounded(); }
                }

                public static void main(String[] args) throws Exception {
                    long records = Long.parseLong(args[0]);
                    double rate = Double.parseDouble(args[1]);
                    StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
                    SequenceSource numbers = SequenceSource.bounded(0, records - 1);
                    int sourceParallelism = args.length > 3 ? Integer.parseInt(args[3]) : 2;
                    Source<Long> source = rate > 0 ? numbers.withRate(rate) : numbers;
                    var stream = env.fromSource(args.length > 4 ? new FixedPositions(source) : source, "numbers");
                    if (sourceParallelism > 0) {
                        stream.setParallelism(sourceParallelism);
                    }
                    stream.keyBy(new ModKey()).map(new Count()).name("count per key").writeAsTextAtLeastOnce(args[2]);
                    env.execute("fixed-source keyed counting");
                }
            }
            """;

    @TempDir
    static Path dir;

    private TestingServer zooKeeper;
    private Path jar;
    /** The cluster of the new processes (after the first ones were killed), and its job manager. */
    private SluiceCluster second;
    private String url;
    /** A copy of the savepoint taken while the first job ran, made before its processes were killed. */
    private Path copiedRunningSavepoint;
    /** The highest count per key the first job wrote before it was stopped. */
    private Map<Long, Long> countedBeforeStop;

    @BeforeAll
    void setUp() throws Exception {
        zooKeeper = TestingZooKeeper.start(dir);
        jar = TestJars.jar(Files.createDirectories(dir.resolve("jar")), "fixed-source-count.jar",
                "userjob.FixedSourceCountJob", Map.of("userjob.FixedSourceCountJob", JOB));
    }

    @AfterAll
    void tearDown() throws Exception {
        if (second != null) {
            second.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    @Test
    @Order(1)
    void savepointsOfAJobOnProcessesRestoreMovedOnNewProcessesAtAnotherParallelismExactly() throws Throwable {
        SluiceCluster first = new SluiceCluster(dir.resolve("first"),
                SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "savepoints-first", dir.resolve("ha-first")));
        Path savepointAtStop;
        try (first) {
            String firstUrl = startProcesses(first, 1);
            savepointAtStop = diagnosed(first, () -> takeSavepointsAndStop(first, firstUrl));
        } // SIGKILLs every process of the first cluster and waits until they are gone
        System.out.println("SavepointProcessesITCase: the job manager and both task managers SIGKILLed");
        Path moved = Files.createDirectories(dir.resolve("moved")).resolve("after-stop");
        Files.move(savepointAtStop, moved);
        assertThat(savepointAtStop).as("the original place of the moved savepoint").doesNotExist();
        deleteRecursively(dir.resolve("checkpoints-first")); // the savepoints need nothing of the old checkpoints

        second = new SluiceCluster(dir.resolve("second"),
                SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "savepoints-second", dir.resolve("ha-second")));
        url = startProcesses(second, 2);
        withDiagnostics(second, () -> {
            Path out = dir.resolve("out-restored");
            String job = submit(second, url, dir.resolve("checkpoints-second"), moved, 3, 0, out);
            awaitEnd(job, "FINISHED");
            System.out.printf("SavepointProcessesITCase: job %s restored from the moved savepoint %s (restored id %d)"
                    + " at parallelism %s FINISHED: lowest counts written %s, highest %s%n", job, moved,
                    Rest.restoredCheckpoint(url, job), parallelisms(job), lowest(out), KeyedCounts.highest(out));
            assertThat(parallelisms(job)).as("the source keeps 2, the rest runs at 3").containsExactly(2, 3);
            assertContinuedExactly(out, countedBeforeStop, "stopped job");
            assertThat(moved.resolve("_metadata")).as("the moved savepoint is kept after the job").isRegularFile();
        });
    }

    /** Savepoint, list, stop with a savepoint; returns the directory of the stop's savepoint. */
    private Path takeSavepointsAndStop(SluiceCluster first, String firstUrl) throws Exception {
        Path out = dir.resolve("out-first");
        String job = submit(first, firstUrl, dir.resolve("checkpoints-first"), null, 2, FIRST_RATE, out);
        await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(firstUrl, job) >= 2
                && KeyedCounts.highest(out).size() == KEYS);

        CommandResult savepoint = cli("savepoint", job, "--cluster", firstUrl);
        Path running = savepointPath(savepoint);
        System.out.println("SavepointProcessesITCase: sluice savepoint: " + savepoint.output().strip());
        assertSavepoint(running);
        assertThat(Rest.jobStatus(firstUrl, job)).as("the job after sluice savepoint").contains("RUNNING");
        assertThat(Rest.get(firstUrl, "/v1/jobs/" + job + "/savepoints").orElseThrow().body().toString())
                .as("GET /v1/jobs/{id}/savepoints").contains(running.toString());
        copiedRunningSavepoint = copy(running, dir.resolve("copied").resolve("while-running"));

        CommandResult stop = cli("stop", job, "--savepoint", "--dir", dir.resolve("savepoints-at-stop").toString(),
                "--cluster", firstUrl);
        Path atStop = savepointPath(stop);
        System.out.println("SavepointProcessesITCase: sluice stop --savepoint: " + stop.output().strip());
        assertThat(atStop).as("a second savepoint, in the --dir given").isNotEqualTo(running)
                .startsWith(dir.resolve("savepoints-at-stop"));
        assertSavepoint(atStop);
        awaitEnd(firstUrl, job, "CANCELED");
        countedBeforeStop = KeyedCounts.highest(out);
        long counted = countedBeforeStop.values().stream().mapToLong(Long::longValue).sum();
        System.out.println("SavepointProcessesITCase: job " + job + " CANCELED after counting " + counted + " of "
                + RECORDS + " records: " + countedBeforeStop);
        assertThat(counted).as("the job was stopped before the end of its input").isLessThan(RECORDS);

        CommandResult listed = cli("savepoints", job, "--cluster", firstUrl);
        System.out.println("SavepointProcessesITCase: sluice savepoints:\n" + listed.output().strip());
        assertThat(listed.exitCode()).isZero();
        assertThat(listed.output()).as("sluice savepoints lists both").contains(running.toString(), atStop.toString());
        return atStop;
    }

    @Test
    @Order(2)
    void aJobRestoredFromACopiedSavepointRescalesOnProcessesExactly() throws Throwable {
        withDiagnostics(second, () -> {
            Path out = dir.resolve("out-before-rescale");
            // 60 records/s, 20 per reader: restored at 3 from 2, the even values are split between two readers and
            // run out twice as fast as the odd ones; at 300/s they ran out before the rescale on a slow machine,
            // and the rescaled job had nothing left to count for those keys (CI of stop 38).
            String job = submit(second, url, dir.resolve("checkpoints-second"), copiedRunningSavepoint, 3, 60, out, "0");
            await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(url, job) >= 1
                    && KeyedCounts.highest(out).size() == KEYS);
            assertThat(parallelisms(job)).as("the source at 3 as well, from 2 in the savepoint").containsExactly(3, 3);
            assertThat(lowest(out).values()).as("the job went on from the copied savepoint's counts").allMatch(c -> c > 1);

            Path rescaledOut = dir.resolve("out-rescaled");
            CommandResult rescale = cli("rescale", job, "1", jar.toString(), "--detached", "--cluster", url,
                    "-D", "checkpoints.interval=300 ms", "-D", "checkpoints.dir=" + dir.resolve("checkpoints-second"),
                    "--", Long.toString(RECORDS), "0", rescaledOut.toString(), "0");
            System.out.println("SavepointProcessesITCase: sluice rescale " + job + " 1: " + rescale.output().strip());
            assertSavepoint(savepointPath(rescale));
            Matcher submitted = SUBMITTED.matcher(rescale.output());
            assertThat(submitted.find()).as("the rescaled job's id in:\n" + rescale.output()).isTrue();
            String rescaled = submitted.group(1);
            awaitEnd(job, "CANCELED");
            assertThat(KeyedCounts.highest(out)).as("every key had records left at the rescale, so that the rescaled"
                    + " job shows it went on from the savepoint").allSatisfy((key, counted) -> assertThat(counted)
                    .isLessThan(KeyedCounts.expected(RECORDS, KEYS).get(key)));
            awaitEnd(rescaled, "FINISHED");
            System.out.printf("SavepointProcessesITCase: job %s rescaled to %s at parallelism %s FINISHED: lowest counts"
                    + " written %s, highest %s%n", job, rescaled, parallelisms(rescaled), lowest(rescaledOut),
                    KeyedCounts.highest(rescaledOut));
            assertThat(parallelisms(rescaled)).as("the source from 3 to 1 as well").containsExactly(1, 1);
            assertThat(lowest(rescaledOut).values()).as("the rescaled job went on from the savepoint's counts")
                    .hasSize(KEYS).allMatch(c -> c > 1);
            KeyedCounts.assertExact(rescaledOut, RECORDS, KEYS);
        });
    }

    @Test
    @Order(3)
    void restoringFromADirectoryThatIsNoSavepointOrWithAFixedPositionSourceAtAnotherParallelismFailsClearlyAndDeletesNothing() throws Throwable {
        withDiagnostics(second, () -> {
            Path notASavepoint = Files.createDirectories(dir.resolve("not-a-savepoint"));
            Files.writeString(notASavepoint.resolve("notes.txt"), "no _metadata here");
            CommandResult run = cli("run", jar.toString(), "--cluster", url, "--parallelism", "2",
                    "--restore-from", notASavepoint.toString(), "-D", "checkpoints.interval=300 ms",
                    "-D", "checkpoints.dir=" + dir.resolve("checkpoints-second"),
                    "--", Long.toString(RECORDS), "0", dir.resolve("out-never").toString());
            System.out.println("SavepointProcessesITCase: sluice run --restore-from " + notASavepoint + ": exit "
                    + run.exitCode() + ":\n" + run.output().strip());
            assertThat(run.exitCode()).as("sluice run from no savepoint").isEqualTo(2);
            assertThat(run.output()).contains(notASavepoint.toString()).contains("is not a checkpoint or savepoint");
            try (Stream<Path> files = Files.list(notASavepoint)) {
                assertThat(files.map(p -> p.getFileName().toString()).toList()).containsExactly("notes.txt");
            }
            assertThat(Files.readString(notASavepoint.resolve("notes.txt"))).isEqualTo("no _metadata here");

            // The savepoint's source ran at 2: a program that runs it at 3 through a source that does not
            // redistribute its positions is refused, the savepoint untouched.
            List<Path> before = filesUnder(copiedRunningSavepoint);
            CommandResult wider = cli("run", jar.toString(), "--cluster", url, "--parallelism", "3",
                    "--restore-from", copiedRunningSavepoint.toString(), "-D", "checkpoints.interval=300 ms",
                    "-D", "checkpoints.dir=" + dir.resolve("checkpoints-second"),
                    "--", Long.toString(RECORDS), "0", dir.resolve("out-never-wider").toString(), "3", "fixed");
            System.out.println("SavepointProcessesITCase: sluice run with the source at 3: exit " + wider.exitCode()
                    + ":\n" + wider.output().strip());
            assertThat(wider.exitCode()).as("sluice run with the source at another parallelism").isEqualTo(2);
            assertThat(wider.output()).contains("source 'Source: numbers' ran at parallelism 2")
                    .contains("runs it at parallelism 3").contains("Nothing was deleted");
            assertThat(filesUnder(copiedRunningSavepoint)).as("the savepoint is untouched").isEqualTo(before);
        });
    }

    // ---- helpers ----

    /**
     * The second-day rescale of a job whose state lives in RocksDB, without a savepoint: on processes, with
     * incremental checkpoints, at parallelism 4 (two task managers of two slots); {@code sluice cancel} (its
     * checkpoints are retained); every process SIGKILLed; on new processes (new JVMs, another HA cluster id,
     * two task managers of one slot) {@code sluice run --restore-from latest:<job> --parallelism 2}: each new
     * subtask takes the key groups of two old ones by importing their table files (the task managers' logs say
     * so), and the counts are exact.
     */
    @Test
    @Order(4)
    void aRocksDbJobCancelledOnProcessesResumesFromItsLatestCheckpointAtHalfTheParallelismOnNewProcessesExactly()
            throws Throwable {
        Path checkpoints = dir.resolve("checkpoints-rocksdb");
        List<String> rocksDb = List.of("-D", "state.backend=rocksdb", "-D", "state.backend.incremental=true");
        Path firstOut = dir.resolve("out-rocksdb-first");
        String cancelled;
        Map<Long, Long> countedBeforeCancel;
        SluiceCluster before = new SluiceCluster(dir.resolve("rocksdb-first"),
                SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "rocksdb-first", dir.resolve("ha-rocksdb-first")));
        try (before) {
            String beforeUrl = startProcesses(before, 2);
            cancelled = diagnosed(before, () -> {
                String job = submit(before, beforeUrl, checkpoints, null, 4, FIRST_RATE, firstOut, rocksDb);
                await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(beforeUrl, job) >= 3
                        && KeyedCounts.highest(firstOut).size() == KEYS);
                assertThat(parallelisms(beforeUrl, job)).as("the source at 2, the count at 4").containsExactly(2, 4);
                CommandResult cancel = cli("cancel", job, "--cluster", beforeUrl);
                assertThat(cancel.exitCode()).as(cancel.output()).isZero();
                awaitEnd(beforeUrl, job, "CANCELED");
                return job;
            });
            countedBeforeCancel = KeyedCounts.highest(firstOut);
        } // SIGKILLs every process
        long counted = countedBeforeCancel.values().stream().mapToLong(Long::longValue).sum();
        System.out.println("SavepointProcessesITCase: RocksDB job " + cancelled + " CANCELED after counting " + counted
                + " of " + RECORDS + " records; its processes SIGKILLed; checkpoint directories "
                + filesUnder(checkpoints.resolve(cancelled)).stream().map(Path::getParent).distinct()
                        .map(p -> checkpoints.relativize(p).toString()).toList());
        assertThat(counted).as("the job was cancelled before the end of its input").isLessThan(RECORDS);
        assertThat(filesUnder(checkpoints)).as("incremental checkpoints: shared RocksDB table files")
                .anyMatch(f -> f.getFileName().toString().endsWith(".sst"));

        Path out = dir.resolve("out-rocksdb-resumed");
        SluiceCluster after = new SluiceCluster(dir.resolve("rocksdb-second"),
                SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "rocksdb-second", dir.resolve("ha-rocksdb-second")));
        try (after) {
            String afterUrl = startProcesses(after, 1);
            withDiagnostics(after, () -> {
                String job = submit(after, afterUrl, checkpoints, "latest:" + cancelled, 2, 0, out, rocksDb);
                awaitEnd(afterUrl, job, "FINISHED");
                System.out.printf("SavepointProcessesITCase: job %s resumed from latest:%s (checkpoint %d) at"
                                + " parallelism %s FINISHED: lowest counts written %s, highest %s%n", job, cancelled,
                        Rest.restoredCheckpoint(afterUrl, job), parallelisms(afterUrl, job), lowest(out),
                        KeyedCounts.highest(out));
                assertThat(parallelisms(afterUrl, job)).as("the source keeps 2, the count from 4 to 2")
                        .containsExactly(2, 2);
                assertContinuedExactly(out, countedBeforeCancel, "cancelled job");
                List<String> restores = new ArrayList<>();
                for (SluiceProcess p : after.processes()) {
                    p.log().lines().filter(l -> l.contains("Restored the RocksDB state of")).forEach(restores::add);
                }
                restores.forEach(l -> System.out.println("SavepointProcessesITCase: " + l.strip()));
                assertThat(restores).as("each of the 2 new subtasks restored 2 old instances by importing their"
                        + " table files").hasSize(2)
                        .allMatch(l -> l.contains("from 2 instances: 2 by importing their table files, 0 by copying"));
            });
        }
    }

    /**
     * The same journey with S3 (S3Proxy in this JVM) as every process's storage: a RocksDB job with incremental
     * checkpoints on S3, {@code sluice stop --savepoint --dir s3://...} (the job manager copies each state file into
     * the savepoint on the server), every process SIGKILLed; the savepoint moved to another prefix and the job's
     * checkpoints deleted; on new processes (new JVMs, another HA cluster id) {@code sluice run --restore-from
     * s3://<moved>} on the heap at parallelism 3: FINISHED with exact counts, continued from the savepoint's.
     */
    @Test
    @Order(5)
    void aRocksDbSavepointOnS3MovedThereRestoresOnNewProcessesOnTheHeapAtAnotherParallelismExactly() throws Throwable {
        String bucket = "sluice";
        try (S3ProxyServer s3 = S3ProxyServer.start(bucket)) {
            String savepointPrefix = "savepoints/";
            Path firstOut = dir.resolve("out-s3-first");
            Map<Long, Long> countedBeforeStop;
            String savepoint;
            SluiceCluster before = new SluiceCluster(dir.resolve("s3-first"), withS3(s3, "s3-first"));
            try (before) {
                String beforeUrl = startProcesses(before, 1);
                savepoint = diagnosed(before, () -> {
                    String job = submit(before, beforeUrl, "s3://" + bucket + "/checkpoints", null, 2, FIRST_RATE, firstOut,
                            List.of("-D", "state.backend=rocksdb", "-D", "state.backend.incremental=true"));
                    await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(beforeUrl, job) >= 2
                            && KeyedCounts.highest(firstOut).size() == KEYS);
                    CommandResult stop = cli("stop", job, "--savepoint", "--dir", "s3://" + bucket + "/" + savepointPrefix,
                            "--cluster", beforeUrl);
                    System.out.println("SavepointProcessesITCase: sluice stop --savepoint on S3: " + stop.output().strip());
                    assertThat(stop.exitCode()).as(stop.output()).isZero();
                    Matcher m = WRITTEN_TO.matcher(stop.output());
                    assertThat(m.find()).as("a savepoint path in:\n" + stop.output()).isTrue();
                    awaitEnd(beforeUrl, job, "CANCELED");
                    return m.group(2);
                });
                countedBeforeStop = KeyedCounts.highest(firstOut);
            } // SIGKILLs every process
            String prefix = savepoint.substring(("s3://" + bucket + "/").length()) + "/";
            assertThat(savepoint).as("the savepoint's place").startsWith("s3://" + bucket + "/" + savepointPrefix);
            List<String> objects = s3.keys(bucket, prefix);
            long stateFiles = objects.stream().filter(k -> k.endsWith(".state")).count();
            System.out.println("SavepointProcessesITCase: savepoint " + savepoint + " holds " + objects + "; "
                    + s3.copies() + " objects copied on the server");
            assertThat(objects).as("the objects of savepoint " + savepoint).contains(prefix + "_metadata");
            assertThat(stateFiles).as("a state file per subtask of the count").isEqualTo(2);
            assertThat(s3.copies()).as("the job manager copied each state file into the savepoint on the server")
                    .isEqualTo((int) stateFiles);
            long counted = countedBeforeStop.values().stream().mapToLong(Long::longValue).sum();
            assertThat(counted).as("the job was stopped before the end of its input").isLessThan(RECORDS);

            String movedPrefix = "moved/after-stop/";
            assertThat(s3.move(bucket, prefix, movedPrefix)).isEqualTo(objects.size());
            int deleted = s3.deleteAll(bucket, "checkpoints/");
            System.out.println("SavepointProcessesITCase: savepoint moved to s3://" + bucket + "/" + movedPrefix
                    + "; the stopped job's " + deleted + " checkpoint objects deleted");
            assertThat(s3.keys(bucket, prefix)).as("the savepoint's original place").isEmpty();

            Path out = dir.resolve("out-s3-restored");
            SluiceCluster after = new SluiceCluster(dir.resolve("s3-second"), withS3(s3, "s3-second"));
            try (after) {
                String afterUrl = startProcesses(after, 2);
                withDiagnostics(after, () -> {
                    String job = submit(after, afterUrl, "s3://" + bucket + "/checkpoints-2",
                            "s3://" + bucket + "/" + movedPrefix, 3, 0, out, List.of());
                    awaitEnd(afterUrl, job, "FINISHED");
                    System.out.printf("SavepointProcessesITCase: job %s restored on the heap from the moved S3 savepoint"
                                    + " at parallelism %s FINISHED: lowest counts written %s, highest %s%n", job,
                            parallelisms(afterUrl, job), lowest(out), KeyedCounts.highest(out));
                    assertThat(parallelisms(afterUrl, job)).as("the source keeps 2, the count from 2 to 3")
                            .containsExactly(2, 3);
                    assertContinuedExactly(out, countedBeforeStop, "stopped job");
                    assertThat(s3.keys(bucket, movedPrefix)).as("the moved savepoint is kept after the job")
                            .contains(movedPrefix + "_metadata");
                });
            }
        }
    }

    /** ZooKeeper HA under {@code clusterId} and S3 at {@code s3} for every process. */
    private Map<String, String> withS3(S3ProxyServer s3, String clusterId) {
        Map<String, String> config = new java.util.LinkedHashMap<>(
                SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), clusterId, dir.resolve("ha-" + clusterId)));
        config.putAll(S3ForProcesses.settings(s3.endpoint()));
        return config;
    }

    /**
     * The restored job that wrote {@code out} went on from {@code before}, the highest count per key the {@code ended}
     * job wrote (every key's first count after the restore above 1 and at most one more than that), and its output is
     * exact.
     */
    private static void assertContinuedExactly(Path out, Map<Long, Long> before, String ended) throws IOException {
        assertThat(lowest(out).values()).as("the restored job went on from the " + ended + "'s counts")
                .hasSize(KEYS).allMatch(c -> c > 1);
        lowest(out).forEach((key, resumed) -> assertThat(resumed).as("key " + key + "'s first count after the restore,"
                + " at most one more than the " + ended + "'s last").isLessThanOrEqualTo(before.get(key) + 1));
        KeyedCounts.assertExact(out, RECORDS, KEYS);
    }

    /** A job manager and two task managers of {@code slots} slots each; returns the job manager's REST URL. */
    private static String startProcesses(SluiceCluster cluster, int slots) throws Exception {
        SluiceProcess launched = cluster.launchJobManager(Host.MACHINE, Map.of());
        for (int i = 0; i < 2; i++) {
            cluster.startTaskManager(Host.MACHINE, slots, Map.of());
        }
        String url = cluster.awaitServing(launched).restUrl();
        await().atMost(TIMEOUT).until(() -> Rest.isLeader(url) && Rest.registeredSlots(url) == 2 * slots);
        return url;
    }

    /**
     * {@code sluice run --detached} of {@link #JOB} to {@code url}, from {@code savepoint} if not null, with
     * checkpoints under {@code checkpoints}; returns the job id.
     */
    private String submit(SluiceCluster cluster, String url, Path checkpoints, Path savepoint, int parallelism, int rate,
            Path out, String... moreArgs) throws Exception {
        return submit(cluster, url, checkpoints, savepoint == null ? null : savepoint.toString(), parallelism, rate, out,
                List.of(), moreArgs);
    }

    /** The same, restoring from {@code restoreFrom} if not null, with {@code moreOptions} for {@code sluice run}. */
    private String submit(SluiceCluster cluster, String url, Path checkpoints, String restoreFrom, int parallelism,
            int rate, Path out, List<String> moreOptions, String... moreArgs) throws Exception {
        return submit(cluster, url, checkpoints.toString(), restoreFrom, parallelism, rate, out, moreOptions, moreArgs);
    }

    /** The same, with checkpoints under {@code checkpoints} (a directory or an {@code s3://} URI). */
    private String submit(SluiceCluster cluster, String url, String checkpoints, String restoreFrom, int parallelism,
            int rate, Path out, List<String> moreOptions, String... moreArgs) throws Exception {
        List<String> options = new ArrayList<>(List.of("--parallelism", Integer.toString(parallelism),
                "-D", "checkpoints.interval=300 ms", "-D", "checkpoints.dir=" + checkpoints,
                "-D", "checkpoints.inline-state-threshold=0")); // state files, to be copied with a savepoint
        options.addAll(moreOptions);
        if (restoreFrom != null) {
            options.addAll(List.of("--restore-from", restoreFrom));
        }
        CommandResult run = cluster.submitJar(jar, url, options,
                Stream.concat(Stream.of(Long.toString(RECORDS), Integer.toString(rate), out.toString()),
                        Stream.of(moreArgs)).toList());
        assertThat(run.exitCode()).as("sluice run:\n" + run.output()).isZero();
        return run.jobId();
    }

    private static CommandResult cli(String... args) throws Exception {
        return SluiceCluster.sluice(dir, List.of(args));
    }

    /** The directory a {@code sluice savepoint} or {@code sluice stop --savepoint} printed (exit 0). */
    private static Path savepointPath(CommandResult result) {
        assertThat(result.exitCode()).as(result.output()).isZero();
        Matcher m = WRITTEN_TO.matcher(result.output());
        assertThat(m.find()).as("a savepoint path in:\n" + result.output()).isTrue();
        String path = m.group(2);
        return path.startsWith("file:") ? Path.of(URI.create(path)) : Path.of(path);
    }

    private void awaitEnd(String job, String expected) {
        awaitEnd(url, job, expected);
    }

    private static void awaitEnd(String url, String job, String expected) {
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200)).until(() -> Rest.jobStatus(url, job)
                .filter(s -> s.equals("FINISHED") || s.equals("FAILED") || s.equals("CANCELED")).isPresent());
        assertThat(Rest.jobStatus(url, job)).as("job " + job + ": " + Rest.job(url, job).map(Object::toString).orElse(""))
                .contains(expected);
    }

    /** The parallelism of each vertex of the job, in order. */
    private List<Integer> parallelisms(String job) {
        return parallelisms(url, job);
    }

    private static List<Integer> parallelisms(String url, String job) {
        List<Integer> out = new ArrayList<>();
        for (JsonNode v : Rest.job(url, job).orElseThrow().path("vertices")) {
            out.add(v.path("parallelism").asInt());
        }
        return out;
    }

    /** {@code _metadata} and the subtasks' state files (none inline: {@code checkpoints.inline-state-threshold=0}). */
    private static void assertSavepoint(Path savepoint) throws IOException {
        List<String> files;
        try (Stream<Path> list = Files.list(savepoint)) {
            files = list.map(p -> p.getFileName().toString()).sorted().toList();
        }
        System.out.println("SavepointProcessesITCase: savepoint " + savepoint + " holds " + files);
        assertThat(files).as("the files of savepoint " + savepoint).contains("_metadata")
                .anyMatch(f -> f.endsWith(".state"));
    }

    private static List<Path> filesUnder(Path root) throws IOException {
        try (Stream<Path> walk = Files.walk(root)) {
            return walk.filter(Files::isRegularFile).sorted().toList();
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }

    private static Path copy(Path from, Path to) throws IOException {
        return TestFiles.copyTree(from, to);
    }

    /** {@code body}'s result; a failure carries every process's output and log. */
    private static <T> T diagnosed(SluiceCluster cluster, java.util.concurrent.Callable<T> body) throws Exception {
        try {
            return body.call();
        } catch (Exception | Error e) {
            e.addSuppressed(new AssertionError("the processes:" + cluster.diagnostics()));
            throw e;
        }
    }

    private static void withDiagnostics(SluiceCluster cluster, Executable body) throws Throwable {
        try {
            body.execute();
        } catch (Throwable t) {
            t.addSuppressed(new AssertionError("the processes:" + cluster.diagnostics()));
            throw t;
        }
    }
}
