package io.sluice.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.sluice.e2e.SluiceCluster.Host;
import io.sluice.e2e.SluiceCluster.SluiceProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A job runs for hours (a second-day journey): memory, open files, threads, class loaders and retained checkpoints
 * stay bounded. A {@code sluice jobmanager} and a {@code sluice taskmanager} under ZooKeeper HA run two endless keyed
 * counts with a checkpoint every 100 ms, one on RocksDB with incremental checkpoints and one on the heap with a
 * state file per snapshot, while short jobs from the same jar are submitted one after the other and run to their
 * end (each a class loader of its own on both processes). After a warm-up the test takes each process's open file
 * descriptors, threads, heap used after a full GC, metaspace and job class loaders, and what lies in checkpoint
 * storage and in RocksDB's working directory; then it runs on for {@code sluice.e2e.long-run-seconds} (45 s by
 * default, some 900 checkpoints of the two jobs; the processes-soak profile runs an hour) and takes them again.
 * Nothing may grow with the run's length: each figure stays within a fixed margin of its warm value, the running
 * jobs keep at most {@code checkpoints.retained} (3) completed checkpoints plus those in flight, and nothing of the
 * ended jobs stays, neither their class loaders nor their checkpoints; the job manager's jar directory holds one
 * copy of the jar that every run submitted ({@code sluice run} reuses a stored jar of the same bytes). Each short
 * job's details count all its 2,000 records once it finished.
 *
 * <p>The default run catches what grows with every checkpoint or every job (a descriptor, a thread, a directory, a
 * class loader); a slow leak of bytes needs the hour of the soak profile.
 */
class LongRunningProcessesITCase {
    private static final long RUN_SECONDS = Long.getLong("sluice.e2e.long-run-seconds", 45);
    private static final Duration TIMEOUT = Duration.ofSeconds(90);
    /** The class histogram's last line: instances and bytes of every live object, counted right after its full GC. */
    private static final Pattern HISTOGRAM_TOTAL = Pattern.compile("(?m)^Total\\s+\\d+\\s+(\\d+)\\s*$");
    private static final Pattern METASPACE_USED = Pattern.compile("Metaspace\\s+used (\\d+)K");
    /** A row of {@code jcmd GC.class_histogram}: {@code num: instances bytes class}. */
    private static final Pattern HISTOGRAM_ROW = Pattern.compile("(?m)^\\s*\\d+:\\s+\\d+\\s+(\\d+)\\s+(\\S+)");
    private static final int RETAINED = 3;
    /** {@code jobmanager.ended-jobs.max-count} of this cluster: the short jobs outnumber it. */
    private static final int MAX_ENDED_JOBS = 10;

    @TempDir
    Path dir;

    @Test
    void descriptorsThreadsMemoryClassLoadersAndCheckpointsStayBoundedWhileJobsRunAndShortJobsComeAndGo()
            throws Exception {
        SluiceCluster.underZooKeeper(dir, "long-run", Map.of("checkpoints.dir", checkpoints().toString()), this::run);
    }

    private void run(SluiceCluster cluster) throws Exception {
        Map<String, String> jobManagerSettings = Map.of("jobmanager.ended-jobs.max-count", String.valueOf(MAX_ENDED_JOBS));
        SluiceProcess jobManager = cluster.launchJobManager(Host.MACHINE, jobManagerSettings);
        SluiceProcess taskManager = cluster.startTaskManager(Host.MACHINE, 3, Map.of(
                "state.backend.rocksdb.local-dir", rocksDbDir().toString()));
        String url = cluster.awaitServing(jobManager).restUrl();
        await("leader with 3 slots").atMost(TIMEOUT).until(() -> Rest.isLeader(url) && Rest.registeredSlots(url) == 3);

        List<String> endless = List.of("--records", "0", "--keys", "20000", "--rate", "4000");
        String rocksJob = cluster.submitExample(url, List.of("--parallelism", "1", "-D", "state.backend=rocksdb", "-D",
                "state.backend.incremental=true", "-D", "checkpoints.interval=100 ms"), endless);
        String heapJob = cluster.submitExample(url, List.of("--parallelism", "1", "-D", "state.backend=heap", "-D",
                "checkpoints.inline-state-threshold=0", "-D", "checkpoints.interval=100 ms"), endless);
        List<String> running = List.of(rocksJob, heapJob);
        // 80 checkpoints at 100 ms: 8 s of input at 4,000 records/s, so every one of the 20,000 keys has its state
        // before the warm figures are taken (with 20 checkpoints the heap job's state was still growing then).
        for (String job : running) {
            await("checkpoints of " + job).atMost(TIMEOUT).until(() -> Rest.completedCheckpoints(url, job) >= 80);
        }
        List<String> ended = new ArrayList<>();
        long[] shortJobCheckpoints = {0};
        ended.add(runShortJob(cluster, url, shortJobCheckpoints));

        Snapshot warm = Snapshot.take(jobManager, taskManager, running, this);
        long checkpointsWarm = running.stream().mapToLong(job -> Rest.completedCheckpoints(url, job)).sum();
        System.out.println("LongRunningProcessesITCase: warm: " + warm);

        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(RUN_SECONDS);
        while (System.nanoTime() < deadline) {
            ended.add(runShortJob(cluster, url, shortJobCheckpoints));
        }
        for (String job : running) {
            assertThat(Rest.jobStatus(url, job)).as(job).contains("RUNNING");
            assertThat(Rest.job(url, job).orElseThrow().path("restarts").path("count").asInt()).as("restarts of " + job)
                    .isZero();
        }
        long checkpointsRun = running.stream().mapToLong(job -> Rest.completedCheckpoints(url, job)).sum()
                - checkpointsWarm;
        await("nothing of the " + ended.size() + " ended jobs left in checkpoint storage").atMost(TIMEOUT)
                .untilAsserted(() -> assertThat(ended).noneMatch(job -> Files.exists(checkpoints().resolve(job))));
        Snapshot[] end = new Snapshot[1];
        await("the ended jobs' class loaders released").atMost(TIMEOUT).pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> {
                    end[0] = Snapshot.take(jobManager, taskManager, running, this);
                    assertThat(end[0].taskManager.loaders).as("job class loaders on the task manager")
                            .isLessThanOrEqualTo(running.size());
                    assertThat(end[0].jobManager.loaders).as("job class loaders on the job manager")
                            .isLessThanOrEqualTo(running.size());
                });
        System.out.println("LongRunningProcessesITCase: after " + RUN_SECONDS + " s more, " + checkpointsRun
                + " checkpoints of the two jobs and " + ended.size() + " short jobs: " + end[0]);
        assertThat(checkpointsRun).as("checkpoints of the two jobs in the run").isGreaterThanOrEqualTo(RUN_SECONDS * 4);
        assertThat(ended.size()).as("short jobs run").isGreaterThanOrEqualTo(3);
        assertThat(shortJobCheckpoints[0])
                .as("checkpoints the short jobs completed (so they had checkpoints to delete)").isPositive();

        System.out.println("LongRunningProcessesITCase: live bytes grown most on the job manager: "
                + end[0].jobManager.grownSince(warm.jobManager, 8) + "; on the task manager: "
                + end[0].taskManager.grownSince(warm.taskManager, 8));
        end[0].jobManager.assertBoundedBy(warm.jobManager, "the job manager");
        end[0].taskManager.assertBoundedBy(warm.taskManager, "the task manager");
        for (int i = 0; i < running.size(); i++) {
            String job = running.get(i);
            assertThat(end[0].checkpointDirs.get(i)).as("completed and in-flight checkpoint directories of " + job)
                    .isLessThanOrEqualTo(RETAINED + 2);
        }
        assertThat(end[0].sharedFiles).as("shared files of the RocksDB job")
                .isLessThanOrEqualTo(Math.max(2 * warm.sharedFiles, warm.sharedFiles + 40));
        assertThat(end[0].storedJars).as("jars in the job manager's jar directory: every run was of one jar")
                .isEqualTo(1);
        assertThat(end[0].rocksDbFiles).as("files in RocksDB's working directory (with the local-recovery copies)")
                .isLessThanOrEqualTo(Math.max(2 * warm.rocksDbFiles, warm.rocksDbFiles + 60));

        // The ended jobs the job manager remembers are bounded (jobmanager.ended-jobs.max-count): the ones that ended
        // first are forgotten, in memory and in ZooKeeper, so a new job manager reads no more of them.
        assertThat(ended.size()).as("short jobs run, more than the job manager remembers").isGreaterThan(MAX_ENDED_JOBS);
        await("the job manager forgets the ended jobs beyond the count").atMost(TIMEOUT).untilAsserted(() ->
                assertThat(endedJobsListed(url)).as("ended jobs listed by the job manager").hasSize(MAX_ENDED_JOBS)
                        .containsAll(ended.subList(ended.size() - MAX_ENDED_JOBS, ended.size())));
        Rest.Answer first = Rest.get(url, "/v1/jobs/" + ended.get(0)).orElseThrow();
        assertThat(first.status()).as("the first short job, forgotten: " + first.body()).isEqualTo(404);
        assertThat(first.body().toString()).contains("jobmanager.ended-jobs.max-count");

        jobManager.kill();
        String newUrl = cluster.awaitServing(cluster.launchJobManager(Host.MACHINE, jobManagerSettings)).restUrl();
        await("a new job manager leads and runs the two jobs again").atMost(TIMEOUT).untilAsserted(() -> {
            assertThat(Rest.isLeader(newUrl)).isTrue();
            for (String job : running) {
                assertThat(Rest.jobStatus(newUrl, job)).as(job).contains("RUNNING");
            }
        });
        List<String> readBack = endedJobsListed(newUrl);
        System.out.println("LongRunningProcessesITCase: of " + ended.size() + " short jobs, the new job manager read back "
                + readBack.size() + " results from ZooKeeper");
        assertThat(readBack).as("ended jobs the new job manager read back from ZooKeeper").hasSize(MAX_ENDED_JOBS)
                .containsAll(ended.subList(ended.size() - MAX_ENDED_JOBS, ended.size()));
    }

    /** The ids of the ended (FINISHED) jobs that {@code url} lists. */
    private static List<String> endedJobsListed(String url) {
        List<String> ids = new ArrayList<>();
        for (var j : Rest.get(url, "/v1/jobs?status=FINISHED").orElseThrow().body().path("jobs")) {
            ids.add(j.path("id").asText());
        }
        return ids;
    }

    /**
     * Runs a short bounded job of the example jar (1 s of input, checkpoints every 200 ms) to its end and adds the
     * checkpoints it completed to {@code checkpoints[0]} (read now: the job manager forgets all but the last
     * {@value #MAX_ENDED_JOBS}); its id.
     */
    private static String runShortJob(SluiceCluster cluster, String url, long[] checkpoints) throws Exception {
        String job = cluster.submitExample(url, List.of("--parallelism", "1", "-D", "checkpoints.interval=200 ms"),
                List.of("--records", "2000", "--keys", "16", "--rate", "2000"));
        await(job + " finished").atMost(TIMEOUT).pollInterval(Duration.ofMillis(100))
                .until(() -> Rest.jobStatus(url, job).filter("FINISHED"::equals).isPresent());
        var vertices = Rest.job(url, job).orElseThrow().path("vertices");
        assertThat(vertices.get(0).path("recordsOut").asLong()).as("records out of the finished job's source")
                .isEqualTo(2000);
        assertThat(vertices.get(vertices.size() - 1).path("recordsIn").asLong())
                .as("records into the finished job's last task").isEqualTo(2000);
        checkpoints[0] += Math.max(0, Rest.completedCheckpoints(url, job));
        return job;
    }

    private Path checkpoints() {
        return dir.resolve("checkpoints");
    }

    private Path rocksDbDir() {
        return dir.resolve("rocksdb");
    }

    /** What the two processes hold, and what lies in storage and in RocksDB's directory, at one moment. */
    private record Snapshot(Usage jobManager, Usage taskManager, List<Long> checkpointDirs, long sharedFiles,
                            long rocksDbFiles, long storedJars) {
        static Snapshot take(SluiceProcess jobManager, SluiceProcess taskManager, List<String> running,
                LongRunningProcessesITCase test) throws Exception {
            List<Long> checkpointDirs = new ArrayList<>();
            for (String job : running) {
                try (Stream<Path> entries = Files.list(test.checkpoints().resolve(job))) {
                    checkpointDirs.add(entries.filter(p -> p.getFileName().toString().startsWith("chk-")).count());
                }
            }
            long storedJars;
            try (Stream<Path> jars = Files.list(jobManager.dir().resolve("sluice-data/jars"))) {
                storedJars = jars.filter(p -> p.getFileName().toString().endsWith(".jar")).count();
            }
            return new Snapshot(Usage.of(jobManager), Usage.of(taskManager), checkpointDirs,
                    filesUnder(test.checkpoints().resolve(running.get(0)).resolve("shared")),
                    filesUnder(test.rocksDbDir()), storedJars);
        }

        /** Regular files under {@code root}, which processes change meanwhile (a file or directory gone is skipped). */
        private static long filesUnder(Path root) throws IOException {
            if (!Files.isDirectory(root)) {
                return 0;
            }
            long[] files = new long[1];
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (attributes.isRegularFile()) {
                        files[0]++;
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
            return files[0];
        }
    }

    /**
     * One process: open descriptors, threads, heap used after a full GC and metaspace (KiB), job class loaders, and
     * the bytes of live objects per class (for what grew).
     */
    private record Usage(long descriptors, long threads, long heapKib, long metaspaceKib, long loaders,
                         Map<String, Long> bytesByClass) {
        static Usage of(SluiceProcess p) throws Exception {
            long pid = p.process().pid();
            String histogram = JobLoaders.histogram(p); // runs a full GC first
            long loaders = JobLoaders.in(histogram, p.name());
            Map<String, Long> bytesByClass = new HashMap<>();
            Matcher row = HISTOGRAM_ROW.matcher(histogram);
            while (row.find()) {
                bytesByClass.merge(row.group(2), Long.parseLong(row.group(1)), Long::sum);
            }
            // The live bytes the histogram counted after its full GC. GC.heap_info, a second jcmd call, counted what
            // the process had allocated since as well: 27 MiB more on CI's loaded machine once (2026-12-07).
            Matcher total = HISTOGRAM_TOTAL.matcher(histogram);
            assertThat(total.find()).as("the total line of the class histogram of " + p.name()).isTrue();
            long heapKib = Long.parseLong(total.group(1)) / 1024;
            String heap = jcmd(pid, "GC.heap_info");
            Matcher metaspace = METASPACE_USED.matcher(heap);
            assertThat(heapKib).as("live heap in the histogram of " + p.name()).isPositive();
            assertThat(metaspace.find()).as("metaspace use in:\n" + heap).isTrue();
            long descriptors;
            try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                descriptors = fds.count();
            }
            long threads = Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(l -> l.startsWith("Threads:")).mapToLong(l -> Long.parseLong(l.substring(8).strip()))
                    .findFirst().orElseThrow();
            return new Usage(descriptors, threads, heapKib, Long.parseLong(metaspace.group(1)), loaders,
                    bytesByClass);
        }

        /** The classes whose live bytes grew most since {@code warm}, largest first. */
        String grownSince(Usage warm, int top) {
            return bytesByClass.entrySet().stream()
                    .map(e -> Map.entry(e.getKey(), e.getValue() - warm.bytesByClass.getOrDefault(e.getKey(), 0L)))
                    .filter(e -> e.getValue() > 0)
                    .sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(top)
                    .map(e -> e.getKey() + " +" + e.getValue()).collect(Collectors.joining(", "));
        }

        @Override
        public String toString() {
            return "descriptors=" + descriptors + ", threads=" + threads + ", heapKib=" + heapKib + ", metaspaceKib="
                    + metaspaceKib + ", loaders=" + loaders;
        }

        /** Fixed margins over the warm figures: what a leak per checkpoint or per job would pass within the run. */
        void assertBoundedBy(Usage warm, String process) {
            assertThat(descriptors).as("open file descriptors of " + process).isLessThanOrEqualTo(warm.descriptors + 50);
            assertThat(threads).as("threads of " + process).isLessThanOrEqualTo(warm.threads + 12);
            assertThat(heapKib).as("heap used after a full GC by " + process + ", KiB")
                    .isLessThanOrEqualTo(warm.heapKib + Math.max(24 * 1024, warm.heapKib / 2));
            assertThat(metaspaceKib).as("metaspace of " + process + ", KiB")
                    .isLessThanOrEqualTo(warm.metaspaceKib + 8 * 1024);
        }

        private static String jcmd(long pid, String command) throws Exception {
            String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
            Process run = new ProcessBuilder(jcmd, "-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC",
                    Long.toString(pid), command).redirectErrorStream(true).start();
            String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(run.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(run.exitValue()).as("jcmd " + command + ":\n" + out).isZero();
            return out;
        }
    }
}
