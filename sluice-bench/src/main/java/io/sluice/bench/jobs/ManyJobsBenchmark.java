package io.sluice.bench.jobs;

import ch.qos.logback.classic.Level;
import com.sun.management.OperatingSystemMXBean;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobStatus;
import io.sluice.protocol.JobSummary;
import io.sluice.rest.RestServerConfig;
import io.sluice.rest.jars.JarRunner;
import io.sluice.rest.jars.LocalJarDirectory;
import io.sluice.rest.local.LocalClusterBackend;
import io.sluice.rest.server.RestServer;
import io.sluice.util.SystemClock;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.slf4j.LoggerFactory;

/**
 * What idle jobs cost one job manager, and how its answers scale with their number. For each job count
 * (default 0, 500, 1,000) and round (default 3), a fresh {@link LocalCluster} (4 task executors with
 * enough slots) and a REST server over it; then, in order:
 * <ol>
 *   <li>the used heap after full GCs and the live threads of the empty cluster;</li>
 *   <li>N idle jobs submitted one after another through the Java API ({@link LocalCluster#submit}),
 *       each timed from the call to the Dispatcher's acceptance, then awaited RUNNING and their tasks
 *       started on the task executors (which comes seconds later under load). An idle job is
 *       the smallest that runs: one source emitting one number a second into a discarding sink,
 *       parallelism 1, no checkpoints;</li>
 *   <li>after 2 s, the used heap after full GCs, the process's resident set and the live threads
 *       again: the difference divided by N is the cost of an idle job (job manager and task executor
 *       together: one JVM; thread stacks are in the resident set, not the heap);</li>
 *   <li>the process CPU over a 5 s window while the jobs idle;</li>
 *   <li>{@code DispatcherGateway.listJobs()} 200 times, {@code GET /v1/jobs?limit=50} 200 times and
 *       {@code GET /v1/jobs} (every job, up to 1,000) 50 times, sequentially, each timed;</li>
 *   <li>every job cancelled, one after another (each timed until accepted), and timed until the last
 *       is CANCELED;</li>
 *   <li>the listing times again, now of N ended jobs with no task running (the listing's own cost,
 *       without the idle tasks' CPU).</li>
 * </ol>
 * Before each round it waits until the previous round's threads have ended (their pools wind down
 * after the cluster closed), so that the empty cluster's thread count is its own.
 * Medians over the rounds are printed per job count ("MEDIAN ..."). With {@code --histogram}, the
 * first round of the largest count also prints the classes whose instances grew most per job (the
 * JVM's class histogram before and after), split into job-manager and task-executor packages, and
 * the live threads per job by name, to show where an idle job's heap and threads go.
 *
 * <pre>
 * java -Xmx2g -cp ... io.sluice.bench.jobs.ManyJobsBenchmark [--jobs 0,500,1000] [--rounds 3] [--histogram]
 * </pre>
 *
 * <p>Threading: {@link #run} on the caller's thread; it waits by polling the cluster.
 */
public final class ManyJobsBenchmark {
    /** Class-name prefixes of what runs on the job manager's side. */
    static final List<String> JOB_MANAGER_PACKAGES = List.of("io.sluice.dispatcher.", "io.sluice.jobmaster.",
            "io.sluice.checkpoint.", "io.sluice.ha.", "io.sluice.slots.", "io.sluice.restart.", "io.sluice.metrics.job.");
    /** Class-name prefixes of what runs on the task executors' side. */
    static final List<String> TASK_EXECUTOR_PACKAGES = List.of("io.sluice.taskexecutor.", "io.sluice.network.",
            "io.sluice.operators.", "io.sluice.state.", "io.sluice.api.");

    private ManyJobsBenchmark() {}

    /** What to run; {@link #smoke()} is a tiny run for the smoke test. */
    public record Options(List<Integer> jobCounts, int rounds, Duration cpuWindow, int listSamples, boolean histogram,
                          Duration settleTimeout) {
        public static Options full() {
            return new Options(List.of(0, 500, 1_000), 3, Duration.ofSeconds(5), 200, false, Duration.ofSeconds(90));
        }

        public static Options smoke() {
            return new Options(List.of(0, 4), 1, Duration.ofMillis(200), 5, true, Duration.ofSeconds(5));
        }
    }

    /**
     * One round with {@code jobs} idle jobs.
     *
     * @param heapBeforeBytes     used heap after GC, empty cluster
     * @param heapAfterBytes      used heap after GC, the jobs idling
     * @param rssBeforeBytes      resident set of the process, empty cluster (0 where /proc is missing)
     * @param rssAfterBytes       resident set of the process, the jobs idling (thread stacks count here, not in the heap)
     * @param threadsBefore       live threads, empty cluster
     * @param threadsAfter        live threads, the jobs idling
     * @param cpuCores            process CPU while idling, in cores (1.0 = one core busy)
     * @param submitNanos         median time of one submission
     * @param idling              listing times while the jobs idle
     * @param ended               listing times once every job is CANCELED (no task runs: the cost of the listing itself)
     * @param cancelAckNanos      median time until one cancel is accepted (they are asked one after another)
     * @param cancelledMillis     from the first cancel to every job CANCELED
     * @param running             jobs RUNNING before the cancel
     * @param cancelled           jobs CANCELED at the end
     */
    public record Round(int jobs, long heapBeforeBytes, long heapAfterBytes, long rssBeforeBytes, long rssAfterBytes,
                        int threadsBefore, int threadsAfter, double cpuCores, long submitNanos, Listing idling,
                        Listing ended, long cancelAckNanos, long cancelledMillis, int running, int cancelled) {
        public double heapPerJobBytes() {
            return jobs == 0 ? 0 : (double) (heapAfterBytes - heapBeforeBytes) / jobs;
        }

        public double rssPerJobBytes() {
            return jobs == 0 ? 0 : (double) (rssAfterBytes - rssBeforeBytes) / jobs;
        }

        public double threadsPerJob() {
            return jobs == 0 ? 0 : (double) (threadsAfter - threadsBefore) / jobs;
        }
    }

    public static void main(String[] args) throws Exception {
        quietLogging();
        run(parse(args), System.out);
        System.exit(0);
    }

    static Options parse(String[] args) {
        Options o = Options.full();
        List<Integer> counts = o.jobCounts();
        int rounds = o.rounds();
        boolean histogram = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jobs" -> counts = Arrays.stream(args[++i].split(",")).map(Integer::parseInt).toList();
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--histogram" -> histogram = true;
                case "--smoke" -> {
                    return Options.smoke();
                }
                default -> throw new IllegalArgumentException("Unknown option " + args[i]
                        + "; the options are --jobs N,N,... --rounds R --histogram --smoke");
            }
        }
        return new Options(counts, rounds, o.cpuWindow(), o.listSamples(), histogram, o.settleTimeout());
    }

    /** Runs every round, printing each and then the medians per job count; returns every round. */
    public static List<Round> run(Options o, PrintStream out) throws Exception {
        int maxJobs = o.jobCounts().stream().mapToInt(Integer::intValue).max().orElse(0);
        out.printf(Locale.ROOT, "Sluice idle jobs on one job manager: job counts %s, %d round(s), JVM %s, max heap %d MiB,"
                        + " %d CPUs%n", o.jobCounts(), o.rounds(), System.getProperty("java.vm.version"),
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors());
        List<Round> rounds = new ArrayList<>();
        for (int r = 0; r < o.rounds(); r++) {
            for (int jobs : o.jobCounts()) {
                boolean histogram = o.histogram() && r == 0 && jobs == maxJobs && jobs > 0;
                Round round = round(jobs, maxJobs, o, histogram, out);
                rounds.add(round);
                out.printf(Locale.ROOT, "round %d  %s%n", r + 1, describe(round));
                out.flush();
            }
        }
        for (int jobs : o.jobCounts()) {
            out.printf(Locale.ROOT, "MEDIAN %s%n", describeMedians(rounds.stream().filter(x -> x.jobs() == jobs).toList()));
        }
        return rounds;
    }

    private static String describe(Round r) {
        return String.format(Locale.ROOT, "%,5d jobs: heap %,6.1f MiB (empty %,5.1f), %,5.1f KiB/job; RSS %,6.1f MiB (empty %,6.1f),"
                        + " %,5.1f KiB/job; threads %,5d (empty %d), %.2f/job; CPU idling %.2f cores; submit %s;"
                        + " listJobs %s / %s; GET ?limit=50 %s / %s; GET all %s / %s (idling / ended); cancel accepted %s,"
                        + " all CANCELED %,d ms",
                r.jobs(), r.heapAfterBytes() / 1048576.0, r.heapBeforeBytes() / 1048576.0, r.heapPerJobBytes() / 1024,
                r.rssAfterBytes() / 1048576.0, r.rssBeforeBytes() / 1048576.0, r.rssPerJobBytes() / 1024,
                r.threadsAfter(), r.threadsBefore(), r.threadsPerJob(), r.cpuCores(), ms(r.submitNanos()),
                ms(r.idling().listJobsNanos()), ms(r.ended().listJobsNanos()), ms(r.idling().restPageNanos()),
                ms(r.ended().restPageNanos()), ms(r.idling().restAllNanos()), ms(r.ended().restAllNanos()),
                ms(r.cancelAckNanos()), r.cancelledMillis());
    }

    /** The median of each figure over the rounds, the per-job ones taken per round first. */
    private static String describeMedians(List<Round> of) {
        return String.format(Locale.ROOT, "%,5d jobs over %d round(s): heap %,5.1f KiB/job; RSS %,5.1f KiB/job; threads %.2f/job;"
                        + " CPU idling %.2f cores; submit %s; listJobs %s / %s; GET ?limit=50 %s / %s; GET all %s / %s"
                        + " (idling / ended); cancel accepted %s, all CANCELED %,d ms",
                of.get(0).jobs(), of.size(), medianOf(of, Round::heapPerJobBytes) / 1024, medianOf(of, Round::rssPerJobBytes) / 1024,
                medianOf(of, Round::threadsPerJob), medianOf(of, Round::cpuCores), ms(median(of, Round::submitNanos)),
                ms(median(of, x -> x.idling().listJobsNanos())), ms(median(of, x -> x.ended().listJobsNanos())),
                ms(median(of, x -> x.idling().restPageNanos())), ms(median(of, x -> x.ended().restPageNanos())),
                ms(median(of, x -> x.idling().restAllNanos())), ms(median(of, x -> x.ended().restAllNanos())),
                ms(median(of, Round::cancelAckNanos)), median(of, Round::cancelledMillis));
    }

    private static double medianOf(List<Round> rounds, java.util.function.ToDoubleFunction<Round> field) {
        double[] s = rounds.stream().mapToDouble(field).sorted().toArray();
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static Round round(int jobs, int maxJobs, Options o, boolean histogram, PrintStream out) throws Exception {
        awaitThreadsSettled(o.settleTimeout()); // the previous round's pools and task threads wind down after its close
        Path dir = Files.createTempDirectory("sluice-many-jobs");
        LocalCluster cluster = LocalCluster.builder().taskExecutors(4).slotsPerTaskExecutor(Math.max(1, maxJobs / 4 + 1))
                .build();
        RestServer server = RestServer.builder(RestServerConfig.defaults().withPort(0),
                new LocalClusterBackend(cluster, new LocalJarDirectory(dir.resolve("jars"), cluster.ioExecutor(),
                        SystemClock.INSTANCE), JarRunner.unsupported())).build().start();
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String base = "http://127.0.0.1:" + server.port();
        try {
            get(http, base + "/v1/jobs"); // warms the server and the Dispatcher's answer path
            long heapBefore = usedAfterGc();
            long rssBefore = residentBytes();
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            Map<String, Integer> namesBefore = threadsByName();
            Map<String, long[]> histogramBefore = histogram ? classHistogram() : Map.of();

            long[] submits = new long[jobs];
            List<JobId> ids = new ArrayList<>();
            for (int i = 0; i < jobs; i++) {
                JobGraph graph = idleJob("idle " + i);
                long t = System.nanoTime();
                ids.add(cluster.submit(graph));
                submits[i] = System.nanoTime() - t;
            }
            await("all " + jobs + " jobs RUNNING", Duration.ofMinutes(5), () -> count(cluster, JobStatus.RUNNING) == jobs);
            // A job is RUNNING once its tasks are being deployed; under load the task executors start the last
            // tasks seconds later. Idle means every task runs.
            await("all " + jobs + " tasks started", Duration.ofMinutes(5), () -> tasks(cluster) == jobs);
            int running = count(cluster, JobStatus.RUNNING);
            TimeUnit.SECONDS.sleep(2); // let the last deployments' garbage become garbage
            long heapAfter = usedAfterGc();
            long rssAfter = residentBytes();
            int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
            if (histogram) {
                printHistogramDelta(histogramBefore, classHistogram(), jobs, out);
                printThreadDelta(namesBefore, threadsByName(), jobs, out);
            }

            OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            long cpu0 = os.getProcessCpuTime();
            long wall0 = System.nanoTime();
            TimeUnit.NANOSECONDS.sleep(o.cpuWindow().toNanos());
            double cores = (double) (os.getProcessCpuTime() - cpu0) / (System.nanoTime() - wall0);

            Listing idling = listing(cluster, http, base, jobs, o.listSamples());

            long cancelStart = System.nanoTime();
            long[] cancels = new long[jobs];
            for (int i = 0; i < jobs; i++) {
                long t = System.nanoTime();
                cluster.dispatcher().cancelJob(ids.get(i)).get(60, TimeUnit.SECONDS);
                cancels[i] = System.nanoTime() - t;
            }
            await("all " + jobs + " jobs CANCELED", Duration.ofMinutes(5), () -> count(cluster, JobStatus.CANCELED) == jobs);
            long cancelMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - cancelStart);
            Listing ended = listing(cluster, http, base, jobs, o.listSamples());
            return new Round(jobs, heapBefore, heapAfter, rssBefore, rssAfter, threadsBefore, threadsAfter, cores,
                    median(submits), idling, ended, median(cancels), cancelMillis, running,
                    count(cluster, JobStatus.CANCELED));
        } finally {
            server.close();
            cluster.close();
            deleteQuietly(dir);
        }
    }

    /**
     * Median times of listing the jobs: {@code DispatcherGateway.listJobs()}, {@code GET /v1/jobs?limit=50}
     * and {@code GET /v1/jobs} (every job, up to 1,000), each asked sequentially.
     */
    public record Listing(long listJobsNanos, long restPageNanos, long restAllNanos) {
    }

    private static Listing listing(LocalCluster cluster, HttpClient http, String base, int jobs, int samples)
            throws Exception {
        long[] lists = new long[samples];
        for (int i = 0; i < lists.length; i++) {
            long t = System.nanoTime();
            List<JobSummary> listed = cluster.dispatcher().listJobs().get(30, TimeUnit.SECONDS);
            lists[i] = System.nanoTime() - t;
            if (listed.size() != jobs) {
                throw new IllegalStateException("listJobs answered " + listed.size() + " jobs, not " + jobs);
            }
        }
        long[] pages = new long[samples];
        for (int i = 0; i < pages.length; i++) {
            long t = System.nanoTime();
            get(http, base + "/v1/jobs?limit=50");
            pages[i] = System.nanoTime() - t;
        }
        long[] alls = new long[Math.max(1, samples / 4)];
        for (int i = 0; i < alls.length; i++) {
            long t = System.nanoTime();
            get(http, base + "/v1/jobs");
            alls[i] = System.nanoTime() - t;
        }
        return new Listing(median(lists), median(pages), median(alls));
    }

    /** The idle job: one number a second from a source into a discarding sink, parallelism 1, no checkpoints. */
    static JobGraph idleJob(String name) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(1);
        env.fromSource(SequenceSource.unbounded(0).withRate(1), "numbers").addSink(new DiscardingSink<>(), "discard");
        return env.buildJobGraph(name);
    }

    private static int count(LocalCluster cluster, JobStatus status) {
        try {
            return (int) cluster.dispatcher().listJobs().get(30, TimeUnit.SECONDS).stream()
                    .filter(j -> j.status() == status).count();
        } catch (Exception e) {
            throw new IllegalStateException("The Dispatcher did not list its jobs: " + e, e);
        }
    }

    private static int tasks(LocalCluster cluster) {
        int sum = 0;
        for (var te : cluster.taskExecutors()) {
            sum += te.numberOfTasks().join();
        }
        return sum;
    }

    private static void get(HttpClient http, String uri) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(uri)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException(uri + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    // ------------------------------------------------------------------ heap

    /** The used heap after full GCs, repeated until it stops falling (at most 10). */
    static long usedAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            memory.gc();
            long now = memory.getHeapMemoryUsage().getUsed();
            if (now >= used) {
                return now;
            }
            used = now;
        }
        return used;
    }

    private static final Pattern HISTOGRAM_LINE = Pattern.compile("\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+).*");

    /** Class name to {instances, bytes}, from the JVM's class histogram (which runs a full GC first). */
    static Map<String, long[]> classHistogram() throws Exception {
        String text = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {null}, new String[] {String[].class.getName()});
        Map<String, long[]> out = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = HISTOGRAM_LINE.matcher(line);
            if (m.matches()) {
                out.merge(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))},
                        (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            }
        }
        return out;
    }

    private static void printHistogramDelta(Map<String, long[]> before, Map<String, long[]> after, int jobs, PrintStream out) {
        record Delta(String name, double instancesPerJob, double bytesPerJob) {
        }
        List<Delta> deltas = new ArrayList<>();
        double jm = 0;
        double te = 0;
        double other = 0;
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            long[] b = before.getOrDefault(e.getKey(), new long[2]);
            double bytes = (double) (e.getValue()[1] - b[1]) / jobs;
            deltas.add(new Delta(e.getKey(), (double) (e.getValue()[0] - b[0]) / jobs, bytes));
            if (JOB_MANAGER_PACKAGES.stream().anyMatch(e.getKey()::startsWith)) {
                jm += bytes;
            } else if (TASK_EXECUTOR_PACKAGES.stream().anyMatch(e.getKey()::startsWith)) {
                te += bytes;
            } else {
                other += bytes;
            }
        }
        out.printf(Locale.ROOT, "class histogram, growth per idle job (%d jobs): io.sluice job-manager classes %,.0f B,"
                + " task-executor classes %,.0f B, everything else (JDK collections, strings, arrays, libraries) %,.0f B%n",
                jobs, jm, te, other);
        deltas.sort(Comparator.comparingDouble(Delta::bytesPerJob).reversed());
        out.println("the 25 classes that grew most:");
        for (Delta d : deltas.subList(0, Math.min(25, deltas.size()))) {
            out.printf(Locale.ROOT, "  %,9.0f B  %8.2f instances  %s%n", d.bytesPerJob(), d.instancesPerJob(), d.name());
        }
        out.println("the 25 io.sluice classes that grew most:");
        deltas.stream().filter(d -> d.name().startsWith("io.sluice.")).limit(25).forEach(d -> out.printf(Locale.ROOT,
                "  %,9.0f B  %8.2f instances  %s%n", d.bytesPerJob(), d.instancesPerJob(), d.name()));
    }

    // ------------------------------------------------------------------ threads and resident memory

    /** Live threads by name with digits and hex ids folded ({@code sluice-main-jobmaster-#}). */
    static Map<String, Integer> threadsByName() {
        Map<String, Integer> out = new java.util.TreeMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            out.merge(t.getName().replaceAll("[0-9a-f]{8,}", "#").replaceAll("[0-9]+", "#"), 1, Integer::sum);
        }
        return out;
    }

    private static void printThreadDelta(Map<String, Integer> before, Map<String, Integer> after, int jobs, PrintStream out) {
        out.printf(Locale.ROOT, "threads per idle job (%d jobs), by name:%n", jobs);
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0)))
                .filter(e -> e.getValue() > jobs / 20)
                .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
                .forEach(e -> out.printf(Locale.ROOT, "  %6.2f  %s%n", (double) e.getValue() / jobs, e.getKey()));
    }

    /** Waits until the live thread count has not fallen for 3 s, at most {@code timeout}. */
    private static void awaitThreadsSettled(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        int last = Integer.MAX_VALUE;
        int steady = 0;
        while (steady < 3 && System.nanoTime() < deadline) {
            System.gc();
            TimeUnit.SECONDS.sleep(1);
            int now = ManagementFactory.getThreadMXBean().getThreadCount();
            steady = now >= last ? steady + 1 : 0;
            last = Math.min(last, now);
        }
    }

    /** The process's resident set from /proc/self/status, or 0 where there is none. */
    static long residentBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
        return 0;
    }

    // ------------------------------------------------------------------ helpers

    private static long median(long[] samples) {
        if (samples.length == 0) {
            return 0;
        }
        long[] s = samples.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    private static long median(List<Round> rounds, java.util.function.ToLongFunction<Round> field) {
        return median(rounds.stream().mapToLong(field).toArray());
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f ms", nanos / 1e6);
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what);
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static void quietLogging() {
        org.slf4j.Logger root = LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        if (root instanceof ch.qos.logback.classic.Logger l) {
            l.setLevel(Level.toLevel(System.getProperty("bench.logLevel", "WARN")));
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: left for the OS
        }
    }
}
