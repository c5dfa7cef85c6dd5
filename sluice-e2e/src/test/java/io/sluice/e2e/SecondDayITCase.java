package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.CommandResult;
import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import io.sluice.testing.zookeeper.TestingZooKeeper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
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
 * The second day of a cluster, on real processes: ZooKeeper in this JVM, a {@code sluice jobmanager}
 * and two {@code sluice taskmanager}s with one slot each, so that every job of parallelism 2 runs
 * on both task managers and its keyed records cross between them. In this order:
 * <ol>
 *   <li>each example of the examples jar ({@code KeyedCountingExample}, {@code WordCount},
 *       {@code ClickSessions}) submitted three times in a row, each run with exact output (the
 *       third submission of {@code ClickSessions} used to fail for ever with a
 *       {@code ClassCastException} between two job loaders' {@code Click});</li>
 *   <li>a job with record keys and record-valued state cancelled, its jar changed (an enum constant
 *       more, another class), and the new jar started with {@code --restore-from latest:<id>}: exact
 *       counts, from the new code;</li>
 *   <li>after those jobs: no job class loader left on the job manager ({@code
 *       sluice_job_classloaders_live} in {@code /metrics}, and the heap) nor on either task manager
 *       (the heap: instances of the job loader class after a full GC, {@code jcmd GC.class_histogram});</li>
 *   <li>a job keyed by each supported key type (String, every boxed primitive, enum, UUID, record with an
 *       enum, nested record, {@code Tuple2<String, enum>}, nested {@code Tuple3}, List, Map; {@link
 *       SecondDayJobs#KINDS}) exchanged between the two task
 *       managers, every process SIGKILLed mid-run and started again (the state restored in other JVMs),
 *       exact counts per key; and no job loader left on the new processes after it;</li>
 *   <li>the same job on a {@code sluice cluster} process (job manager and task executors in one JVM),
 *       SIGKILLed and started again on the same directory: it resumes by itself with exact counts, and
 *       leaves no job loader behind;</li>
 *   <li>two versions of one jar (classes of the same names) running at once on that cluster: each
 *       with its own classes and exact counts, and no job loader left after them;</li>
 *   <li>each example submitted three times in a row to that {@code sluice cluster} process too (job
 *       manager and task executors in one JVM, as a new user runs them), each run exact, and no job loader
 *       left after them;</li>
 *   <li>that process stopped with SIGTERM while the job of case 4 runs from its jar: it exits 0 and
 *       leaves no copy of the jar in its temporary directory (the killed process of case 5 left one, which
 *       the process started after it deleted); started again, it resumes the job with exact counts.</li>
 * </ol>
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SecondDayITCase {
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern COUNT_LINE = Pattern.compile("(\\d+),(\\d+)");

    @TempDir
    static Path dir;

    private TestingServer zooKeeper;
    private SluiceCluster processes;
    private SluiceProcess jobManager;
    private final List<SluiceProcess> taskManagers = new ArrayList<>();
    /** The {@code sluice cluster} processes of the last two cases. */
    private SluiceCluster local;
    private SluiceProcess localCluster;
    /** The settings and options {@link #localCluster} is started with, again after it stopped. */
    private Map<String, String> localSettings;
    private List<String> localOptions;

    @BeforeAll
    void startCluster() throws Exception {
        zooKeeper = TestingZooKeeper.start(dir);
        processes = new SluiceCluster(dir, clusterConfig());
        startProcesses();
    }

    private void startProcesses() throws Exception {
        // All three launched at once (their start-ups overlap); the task managers find the leader in ZooKeeper.
        SluiceProcess launched = processes.launchJobManager(Host.MACHINE, Map.of());
        taskManagers.clear();
        for (int i = 0; i < 2; i++) {
            taskManagers.add(processes.startTaskManager(Host.MACHINE, 1, Map.of()));
        }
        jobManager = processes.awaitServing(launched);
        await().atMost(TIMEOUT).until(() -> Rest.registeredSlots(jobManager.restUrl()) == 2);
    }

    @AfterAll
    void stopCluster() throws Exception {
        if (local != null) {
            local.close();
        }
        if (processes != null) {
            processes.close();
        }
        if (zooKeeper != null) {
            zooKeeper.close();
        }
    }

    private Map<String, String> clusterConfig() {
        return SluiceCluster.zooKeeperHa(zooKeeper.getConnectString(), "second-day", dir.resolve("ha-storage"));
    }

    @Test
    @Order(1)
    void eachExampleSubmittedThreeTimesInARowGivesExactOutputEachTime() throws Throwable {
        withDiagnostics(() -> eachExampleThreeTimes(processes, jobManager.restUrl(), dir.resolve("jm-tm")));
    }

    /** Each example of the examples jar submitted three times in a row to the cluster at {@code url}, each run exact. */
    private void eachExampleThreeTimes(SluiceCluster cluster, String url, Path outputs) throws Exception {
        Files.createDirectories(outputs);
        Path text = writeText(dir.resolve("book.txt"));
        Path clicks = writeClicks(dir.resolve("clicks.csv"));
        for (int run = 1; run <= 3; run++) {
            Path counts = outputs.resolve("keyed-counts-" + run);
            runToTheEnd(cluster, url, SluiceCluster.examplesJar(), List.of("--class",
                    "io.sluice.examples.jobs.KeyedCountingExample"), List.of("--records", "3000", "--keys", "8", "--rate",
                    "0", "--output", counts.toString()));
            KeyedCounts.assertExact(counts, 3000, 8);
        }
        for (int run = 1; run <= 3; run++) {
            Path words = outputs.resolve("word-counts-" + run);
            runToTheEnd(cluster, url, SluiceCluster.examplesJar(), List.of("--class", "io.sluice.examples.jobs.WordCount"),
                    List.of("--input", text.toString(), "--output", words.toString()));
            assertThat(highestPerWord(words)).as("word counts of run " + run).isEqualTo(expectedWords());
        }
        for (int run = 1; run <= 3; run++) {
            Path sessions = outputs.resolve("sessions-" + run);
            runToTheEnd(cluster, url, SluiceCluster.examplesJar(), List.of("--class", "io.sluice.examples.jobs.ClickSessions"),
                    List.of("--input", clicks.toString(), "--output", sessions.toString(), "--gap", "60s"));
            assertThat(lines(sessions)).as("sessions of run " + run).isEqualTo(expectedSessions());
            assertThat(lines(Path.of(sessions + "-late"))).as("late clicks of run " + run).isEmpty();
        }
    }

    @Test
    @Order(2)
    void aCancelledJobRestoredWithAChangedJarCountsExactly() throws Throwable {
        withDiagnostics(() -> {
            long records = 3000;
            Path checkpoints = dir.resolve("checkpoints-visits");
            List<String> options = List.of("-D", "checkpoints.interval=300 ms", "-D", "checkpoints.dir=" + checkpoints);
            List<String> v1Options = new ArrayList<>(List.of("--parallelism", "2"));
            v1Options.addAll(options);
            Path out1 = dir.resolve("visits-v1");
            CommandResult v1 = processes.submitJar(SecondDayJobs.visitsJar(Files.createDirectories(dir.resolve("jar-v1")), 1),
                    jobManager.restUrl(), v1Options, visitsArgs(records, 300, out1));
            assertThat(v1.exitCode()).as(v1.output()).isZero();
            String job1 = v1.jobId();
            await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(jobManager.restUrl(), job1) >= 2
                    && !highest(out1, "v1:").isEmpty());
            CommandResult cancel = SluiceCluster.sluice(dir, List.of("cancel", job1, "--cluster", jobManager.restUrl()));
            assertThat(cancel.exitCode()).as(cancel.output()).isZero();
            await().atMost(TIMEOUT).until(() -> Rest.jobStatus(jobManager.restUrl(), job1).filter("CANCELED"::equals).isPresent());
            assertThat(highest(out1, "v1:").values()).as("version 1 was cancelled before its end")
                    .allMatch(c -> c < records / 8);

            Path out2 = dir.resolve("visits-v2");
            List<String> restore = new ArrayList<>(options);
            restore.addAll(List.of("--restore-from", "latest:" + job1));
            String job2 = runToTheEnd(SecondDayJobs.visitsJar(Files.createDirectories(dir.resolve("jar-v2")), 2), restore,
                    visitsArgs(records, 0, out2));
            assertThat(highest(out2, "v2:")).as("final counts of version 2, restored from version 1 (" + job1 + " -> "
                    + job2 + ")").isEqualTo(KeyedCounts.expected(records, 8));
            assertThat(highest(out2, "v1:")).as("no line of version 1's code in version 2's output").isEmpty();
        });
    }

    @Test
    @Order(3)
    void noJobClassLoaderIsLeftOnAnyProcessAfterTheJobs() throws Throwable {
        withDiagnostics(this::assertNoJobClassLoaderLeft);
    }

    @Test
    @Order(4)
    void keysOfEverySupportedTypeRestoreInOtherJvmsAndCrossTaskManagersExactly() throws Throwable {
        withDiagnostics(() -> {
            long records = 4000;
            Path out = dir.resolve("key-types");
            List<String> options = List.of("--parallelism", "2", "-D", "checkpoints.interval=300 ms",
                    "-D", "checkpoints.dir=" + dir.resolve("checkpoints-key-types"));
            CommandResult run = processes.submitJar(SecondDayJobs.keyTypesJar(Files.createDirectories(dir.resolve("jar-keys"))),
                    jobManager.restUrl(), options, List.of("--records", Long.toString(records), "--rate", "400",
                            "--output", out.toString()));
            assertThat(run.exitCode()).as(run.output()).isZero();
            String job = run.jobId();
            await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(jobManager.restUrl(), job) >= 3
                    && SecondDayJobs.KINDS.stream().allMatch(k -> !countsOf(out.resolve(k)).isEmpty()));

            // Every process SIGKILLed mid-run; new JVMs restore the state (a key group mismatch fails every restore).
            assertThat(Rest.jobStatus(jobManager.restUrl(), job)).as("killed while it runs").contains("RUNNING");
            jobManager.kill();
            for (SluiceProcess tm : taskManagers) {
                tm.kill();
            }
            startProcesses();
            await().atMost(TIMEOUT).until(() -> Rest.jobStatus(jobManager.restUrl(), job)
                    .filter(s -> s.equals("FINISHED") || s.equals("FAILED")).isPresent());
            assertThat(Rest.jobStatus(jobManager.restUrl(), job)).contains("FINISHED");
            assertThat(Rest.restoredCheckpoint(jobManager.restUrl(), job)).as("the new JVMs restored a checkpoint")
                    .isPositive();
            Map<String, Map<Long, Long>> counts = new TreeMap<>();
            Map<String, Map<Long, Long>> expected = new TreeMap<>();
            for (String kind : SecondDayJobs.KINDS) {
                counts.put(kind, countsOf(out.resolve(kind)));
                expected.put(kind, KeyedCounts.expected(records, SecondDayJobs.keysOf(kind)));
            }
            assertThat(counts).as("final count of every key, per key type").isEqualTo(expected);
            assertThat(Rest.job(jobManager.restUrl(), job).orElseThrow().toString())
                    .as("the job restored once, after the SIGKILLs, and never failed on its keys")
                    .doesNotContain("key group").doesNotContain("ClassCastException");
            assertNoJobClassLoaderLeft();
        });
    }

    @Test
    @Order(5)
    void aSluiceClusterSigkilledAndStartedAgainOnItsDirectoryRestoresKeysOfEverySupportedType() throws Throwable {
        Path data = Files.createDirectories(dir.resolve("local-cluster-data"));
        Map<String, String> settings = Map.of("high-availability.dir", data.resolve("ha").toString(),
                "checkpoints.dir", data.resolve("checkpoints").toString());
        List<String> options = List.of("--jar-dir", data.resolve("jars").toString());
        localSettings = settings;
        localOptions = options;
        local = new SluiceCluster(dir.resolve("local"), Map.of());
        withDiagnostics(local, () -> {
            SluiceProcess cluster = local.startLocalCluster(localJvm(), options, settings);
            long records = 2000;
            Path out = dir.resolve("key-types-local");
            CommandResult run = local.submitJar(SecondDayJobs.keyTypesJar(Files.createDirectories(dir.resolve("jar-keys-local"))),
                    cluster.restUrl(), List.of("--parallelism", "2", "-D", "checkpoints.interval=300 ms"),
                    List.of("--records", Long.toString(records), "--rate", "400", "--output", out.toString()));
            assertThat(run.exitCode()).as(run.output()).isZero();
            String job = run.jobId();
            await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(cluster.restUrl(), job) >= 3
                    && SecondDayJobs.KINDS.stream().allMatch(k -> !countsOf(out.resolve(k)).isEmpty()));

            assertThat(Rest.jobStatus(cluster.restUrl(), job)).as("killed while it runs").contains("RUNNING");
            cluster.kill();
            long killed = cluster.process().pid();
            assertThat(jarCopies(killed)).as("the killed process's copy of the running job's jar").hasSize(1);
            localCluster = local.startLocalCluster(localJvm(), options, settings);
            assertResumedExactly(job, records, out);
            assertThat(jarCacheDirectories(killed)).as("the killed process's jar cache, deleted by the next process"
                    + " when it loaded the job's jar").isEmpty();
        });
    }

    @Test
    @Order(6)
    void twoVersionsOfOneJarRunSideBySideEachWithItsOwnClasses() throws Throwable {
        withDiagnostics(local, () -> {
            long records = 2000;
            String url = localCluster.restUrl();
            Map<Integer, String> jobs = new LinkedHashMap<>();
            for (int version = 1; version <= 2; version++) {
                Path jar = SecondDayJobs.visitsJar(Files.createDirectories(dir.resolve("side-by-side-jar-v" + version)), version);
                CommandResult run = local.submitJar(jar, url, List.of("--parallelism", "2"),
                        visitsArgs(records, 150, dir.resolve("side-by-side-v" + version)));
                assertThat(run.exitCode()).as(run.output()).isZero();
                jobs.put(version, run.jobId());
            }
            await().atMost(TIMEOUT).until(() -> jobs.values().stream()
                    .allMatch(j -> Rest.jobStatus(url, j).filter(st -> st.equals("RUNNING") || st.equals("FINISHED")).isPresent()));
            assertThat(jobs.values()).as("both versions run at once").allMatch(j -> Rest.jobStatus(url, j).filter("RUNNING"::equals).isPresent());
            for (Map.Entry<Integer, String> job : jobs.entrySet()) {
                await().atMost(TIMEOUT).until(() -> Rest.jobStatus(url, job.getValue())
                        .filter(st -> st.equals("FINISHED") || st.equals("FAILED")).isPresent());
                assertThat(Rest.jobStatus(url, job.getValue())).contains("FINISHED");
                Path out = dir.resolve("side-by-side-v" + job.getKey());
                assertThat(highest(out, "v" + job.getKey() + ":")).as("counts of version " + job.getKey())
                        .isEqualTo(KeyedCounts.expected(records, 8));
                assertThat(highest(out, "v" + (3 - job.getKey()) + ":")).as("no line of the other version").isEmpty();
            }
            assertNoJobClassLoaderLeftOn(localCluster);
        });
    }

    /**
     * The user's own case: the examples submitted three times each to one {@code sluice cluster} process,
     * whose job manager and task executors share one JVM (so any JVM-wide cache of job classes is shared
     * by every run); then no job loader is left on it.
     */
    @Test
    @Order(7)
    void eachExampleSubmittedThreeTimesInARowToASluiceClusterGivesExactOutputEachTime() throws Throwable {
        withDiagnostics(local, () -> {
            eachExampleThreeTimes(local, localCluster.restUrl(), dir.resolve("sluice-cluster"));
            long start = System.nanoTime();
            assertNoJobClassLoaderLeftOn(localCluster);
            System.out.printf("SecondDayITCase: no job loader left on the sluice cluster process, %d ms after the last"
                    + " job%n", (System.nanoTime() - start) / 1_000_000);
        });
    }

    /**
     * The {@code sluice cluster} process stopped as an operator stops it (SIGTERM) while the job keyed by every
     * supported key type runs from its jar: it exits 0 and leaves no jar cache directory (nor the running job's
     * jar copy) in its temporary directory; started again on the same directory, it resumes the job in a new JVM
     * from its checkpoint, with exact counts per key.
     */
    @Test
    @Order(8)
    void aSluiceClusterStoppedWithSigtermResumesItsJobAndLeavesNoJarCopyBehind() throws Throwable {
        withDiagnostics(local, () -> {
            String url = localCluster.restUrl();
            long records = 2000;
            Path out = dir.resolve("key-types-sigterm");
            CommandResult run = local.submitJar(SecondDayJobs.keyTypesJar(Files.createDirectories(dir.resolve("jar-keys-sigterm"))),
                    url, List.of("--parallelism", "2", "-D", "checkpoints.interval=300 ms"),
                    List.of("--records", Long.toString(records), "--rate", "400", "--output", out.toString()));
            assertThat(run.exitCode()).as(run.output()).isZero();
            String job = run.jobId();
            await().atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(url, job) >= 3
                    && SecondDayJobs.KINDS.stream().allMatch(k -> !countsOf(out.resolve(k)).isEmpty()));
            assertThat(Rest.jobStatus(url, job)).as("stopped while it runs").contains("RUNNING");
            long pid = localCluster.process().pid();
            assertThat(jarCopies(pid)).as("the running job's jar copy").hasSize(1);

            localCluster.process().destroy(); // SIGTERM
            assertThat(localCluster.process().waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            assertThat(localCluster.process().exitValue()).as(localCluster.output()).isZero();
            assertThat(jarCacheDirectories(pid)).as("the stopped process's jar cache").isEmpty();

            localCluster = local.startLocalCluster(localJvm(), localOptions, localSettings);
            assertResumedExactly(job, records, out);
        });
    }

    /**
     * The key-type job {@code job} ({@code records} records, output in {@code out}) resumed on the restarted
     * {@link #localCluster}: it finishes from a restored checkpoint with the exact count of every key of every
     * type, and no job loader is left on the process.
     */
    private void assertResumedExactly(String job, long records, Path out) throws Exception {
        await().atMost(TIMEOUT).until(() -> Rest.jobStatus(localCluster.restUrl(), job)
                .filter(st -> st.equals("FINISHED") || st.equals("FAILED")).isPresent());
        assertThat(Rest.jobStatus(localCluster.restUrl(), job)).contains("FINISHED");
        assertThat(Rest.restoredCheckpoint(localCluster.restUrl(), job)).as("the new JVM restored a checkpoint")
                .isPositive();
        for (String kind : SecondDayJobs.KINDS) {
            assertThat(countsOf(out.resolve(kind))).as("final count of every " + kind + " key")
                    .isEqualTo(KeyedCounts.expected(records, SecondDayJobs.keysOf(kind)));
        }
        assertNoJobClassLoaderLeftOn(localCluster);
    }

    /** The {@code sluice cluster} processes' JVM options: a temporary directory of their own, to look into. */
    private static List<String> localJvm() throws IOException {
        return List.of("-Djava.io.tmpdir=" + Files.createDirectories(dir.resolve("local-tmp")));
    }

    /** The jar cache directories of process {@code pid} in the {@code sluice cluster} processes' temporary directory. */
    private static List<Path> jarCacheDirectories(long pid) throws IOException {
        try (Stream<Path> entries = Files.list(dir.resolve("local-tmp"))) {
            return entries.filter(p -> p.getFileName().toString().startsWith("sluice-job-jars-" + pid + "-")).toList();
        }
    }

    /** The jar copies in {@link #jarCacheDirectories}. */
    private static List<Path> jarCopies(long pid) throws IOException {
        List<Path> jars = new ArrayList<>();
        for (Path cache : jarCacheDirectories(pid)) {
            try (Stream<Path> files = Files.list(cache)) {
                files.filter(f -> f.toString().endsWith(".jar")).forEach(jars::add);
            }
        }
        return jars;
    }

    // ---- jobs ----

    /** Submits to the job manager of {@link #processes}, awaits FINISHED and returns the job id. */
    private String runToTheEnd(Path jar, List<String> options, List<String> args) throws Exception {
        return runToTheEnd(processes, jobManager.restUrl(), jar, options, args);
    }

    /** Submits to {@code url} (parallelism 2), awaits FINISHED and returns the job id. */
    private static String runToTheEnd(SluiceCluster cluster, String url, Path jar, List<String> options, List<String> args)
            throws Exception {
        List<String> all = new ArrayList<>(List.of("--parallelism", "2"));
        all.addAll(options);
        long start = System.nanoTime();
        CommandResult run = cluster.submitJar(jar, url, all, args);
        assertThat(run.exitCode()).as("sluice run:\n" + run.output()).isZero();
        String job = run.jobId();
        long submitted = System.nanoTime();
        await().atMost(TIMEOUT).pollInterval(Duration.ofMillis(200)).until(() -> Rest.jobStatus(url, job)
                .filter(s -> s.equals("FINISHED") || s.equals("FAILED") || s.equals("CANCELED")).isPresent());
        System.out.printf("SecondDayITCase: %s %s: sluice run %d ms, then ended after %d ms%n", url, options,
                (submitted - start) / 1_000_000, (System.nanoTime() - submitted) / 1_000_000);
        assertThat(Rest.jobStatus(url, job)).as("job " + job + ": " + Rest.job(url, job).map(Object::toString).orElse(""))
                .contains("FINISHED");
        return job;
    }

    private static List<String> visitsArgs(long records, int rate, Path output) {
        return List.of("--records", Long.toString(records), "--rate", Integer.toString(rate), "--output", output.toString());
    }

    // ---- class loaders ----

    private void assertNoJobClassLoaderLeft() {
        for (SluiceProcess tm : taskManagers) {
            JobLoaders.assertNoneLeftOn(tm, false);
        }
        JobLoaders.assertNoneLeftOn(jobManager, true);
    }

    /** No job loader on the heap of a {@code sluice cluster} process, and its gauge says so. */
    private static void assertNoJobClassLoaderLeftOn(SluiceProcess cluster) {
        JobLoaders.assertNoneLeftOn(cluster, true);
    }

    // ---- inputs and expected outputs ----

    private static final List<String> VOCABULARY = List.of("river", "sluice", "gate", "water", "stream", "Mill",
            "lock", "weir", "été", "día");

    private static Path writeText(Path file) throws IOException {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            StringBuilder line = new StringBuilder();
            for (int w = 0; w <= i % VOCABULARY.size(); w++) {
                line.append(VOCABULARY.get((i + w * 3) % VOCABULARY.size())).append(w % 2 == 0 ? " " : ", ");
            }
            lines.add(line.toString());
        }
        Files.write(file, lines);
        return file;
    }

    private Map<String, Long> expectedWords() throws IOException {
        Map<String, Long> counts = new TreeMap<>();
        for (String line : Files.readAllLines(dir.resolve("book.txt"))) {
            for (String word : line.toLowerCase(java.util.Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
                if (!word.isEmpty()) {
                    counts.merge(word, 1L, Long::sum);
                }
            }
        }
        return counts;
    }

    private static Map<String, Long> highestPerWord(Path output) throws IOException {
        Map<String, Long> highest = new TreeMap<>();
        for (String line : lines(output)) {
            int comma = line.lastIndexOf(',');
            highest.merge(line.substring(0, comma), Long.parseLong(line.substring(comma + 1)), Math::max);
        }
        return highest;
    }

    /** Clicks of 6 users, 3 sessions each 10 minutes apart, 1 to 3 clicks 2 s apart, in time order. */
    private static Path writeClicks(Path file) throws IOException {
        TreeMap<Long, String> byTime = new TreeMap<>();
        forEachClick((time, line) -> byTime.put(time, line));
        List<String> lines = new ArrayList<>(List.of("# timestampMillis,user,url"));
        lines.addAll(byTime.values());
        Files.write(file, lines);
        return file;
    }

    private static void forEachClick(java.util.function.BiConsumer<Long, String> click) {
        for (int s = 0; s < 3; s++) {
            for (int u = 0; u < 6; u++) {
                for (int c = 0; c <= u % 3; c++) {
                    long time = 1_000_000L + s * 600_000L + u * 100L + c * 2_000L + 7; // distinct
                    click.accept(time, time + ",u" + u + ",/u" + u + "/s" + s + "/c" + c);
                }
            }
        }
    }

    /** {@code user,sessionStart,sessionEnd,clicks,firstUrl}: a session ends one gap (60 s) after its last click. */
    private static Set<String> expectedSessions() {
        Set<String> sessions = new TreeSet<>();
        for (int s = 0; s < 3; s++) {
            for (int u = 0; u < 6; u++) {
                long first = 1_000_000L + s * 600_000L + u * 100L + 7;
                long last = first + (u % 3) * 2_000L;
                sessions.add("u" + u + "," + first + "," + (last + 60_000) + "," + (u % 3 + 1) + ",/u" + u + "/s" + s + "/c0");
            }
        }
        return sessions;
    }

    /** The lines of every part file under {@code output}, sorted. */
    private static Set<String> lines(Path output) throws IOException {
        Set<String> lines = new TreeSet<>();
        if (!Files.isDirectory(output)) {
            return lines;
        }
        try (Stream<Path> parts = Files.list(output)) {
            for (Path part : parts.toList()) {
                lines.addAll(Files.readAllLines(part).stream().filter(l -> !l.isBlank()).toList());
            }
        }
        return lines;
    }

    /** The highest {@code i,count} per key, of lines starting with {@code prefix}. */
    private static Map<Long, Long> highest(Path output, String prefix) throws IOException {
        Map<Long, Long> highest = new HashMap<>();
        for (String line : lines(output)) {
            if (line.startsWith(prefix)) {
                Matcher m = COUNT_LINE.matcher(line.substring(prefix.length()));
                if (m.matches()) {
                    highest.merge(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Math::max);
                }
            }
        }
        return highest;
    }

    private static Map<Long, Long> countsOf(Path output) {
        try {
            return highest(output, "");
        } catch (IOException e) {
            return Map.of();
        }
    }

    private void withDiagnostics(Executable body) throws Throwable {
        withDiagnostics(processes, body);
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
