package io.sluice.compare.sluice;

import io.sluice.api.source.SequenceSource;
import io.sluice.cluster.LocalCluster;
import io.sluice.compare.CountingCheck;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Stats;
import io.sluice.protocol.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import io.sluice.protocol.VertexStatus;
import io.sluice.taskexecutor.TaskExecutor;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@link Scenario#THROUGHPUT} and {@link Scenario#THROUGHPUT_2TM}: the keyed counting job with an
 * unlimited source and {@code plan.throughputKeys()} keys on a plain {@link LocalCluster} of 2 task
 * executors with 1 slot each (HA in memory), checkpoints every {@code plan.checkpointInterval()} to
 * local disk. For {@code throughput} every channel is in memory; for {@code throughput-2tm} the
 * cluster exchanges data over TCP ({@link LocalCluster.Builder#networkDataExchange}): each task
 * executor has its own data server on 127.0.0.1, and the keyed channels between the subtasks of the
 * two task executors (half of all records) cross a loopback connection with credit-based flow control.
 *
 * <p>Per run, a fresh job: once its keyed vertex counts, {@code plan.throughputWarmup()}, then the
 * records its keyed vertex took in ({@code recordsIn} of the job details, sampled at both ends) over
 * {@code plan.throughputWindow()} (over TCP {@code plan.twoTaskManagerWarmup()} and
 * {@code plan.twoTaskManagerWindow()}, the same in the full plan), as {@code io.sluice.bench.ThroughputBenchmark} measures. A run in
 * which the job restarted, or whose keyed vertex took in no record in the window (a stall as long as the window), is
 * invalid and left out; if no planned run is valid, one more is made. Over TCP it also reports the task executors that ran
 * the job's tasks (both must) and the bytes they received from each other per record counted (must be
 * positive), then runs the bounded {@link CountingCheck}, whose counts must be exact.
 *
 * <p>Threading: harness thread; the functions run on their task threads.
 */
final class Throughput implements ScenarioRunner {
    private final Scenario scenario;

    private Throughput(Scenario scenario) {
        this.scenario = scenario;
    }

    /** {@link Scenario#THROUGHPUT}: every channel in memory. */
    static Throughput inMemory() {
        return new Throughput(Scenario.THROUGHPUT);
    }

    /** {@link Scenario#THROUGHPUT_2TM}: channels between the two task executors over TCP. */
    static Throughput overTcp() {
        return new Throughput(Scenario.THROUGHPUT_2TM);
    }

    private boolean tcp() {
        return scenario == Scenario.THROUGHPUT_2TM;
    }

    /**
     * One measured window; {@code tcpBytes} is what crossed TCP in it (0 in memory), {@code taskManagers}
     * the task executors that ran tasks at its end.
     */
    record Run(double recordsPerSecond, double recordsPerCpuSecond, long checkpoints, boolean restarted, long records,
               long tcpBytes, int taskManagers) {
        /** Neither restarted nor stalled: the keyed vertex took in records all through the window. */
        boolean valid() {
            return !restarted && records > 0;
        }

        /** For a progress line: empty for a valid run, else why it is left out. */
        String invalidity() {
            if (restarted) {
                return "; INVALID: the job restarted";
            }
            return records > 0 ? "" : "; INVALID: its keyed vertex took in no record in the window (a stall)";
        }
    }

    /**
     * How many runs a scenario makes: the plan's, and one more if none of those was valid (a restart, or a stall
     * as long as the window, which a smoke run's one-second window on a loaded build machine can meet).
     */
    static boolean anotherRun(int done, int planned, List<Run> runs) {
        return done < planned || (done == planned && runs.stream().noneMatch(Run::valid));
    }

    /** A run's label in a progress line: {@code "run 2/3"}, or for the run {@link #anotherRun} adds, "one more run". */
    static String runLabel(int run, int planned) {
        return run <= planned ? "run " + run + "/" + planned : "one more run (none of the " + planned + " was valid)";
    }

    /** The error of a scenario none of whose runs was valid. */
    static IllegalStateException noValidRun(String scenarioId, int runs) {
        return new IllegalStateException("No valid " + scenarioId + " run in " + runs + ": the job restarted, or its"
                + " keyed vertex took in no record in the window, in every run; see the progress lines and the"
                + " runtime's warnings on stderr");
    }

    /** The variant label: {@code "parallelism 2, checkpoints every 1000 ms"}. */
    static String variant(Plan plan) {
        return String.format(Locale.ROOT, "parallelism %d, checkpoints every %d ms", Jobs.PARALLELISM,
                plan.checkpointInterval().toMillis());
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        String id = scenario.id();
        String variant = tcp() ? plan.twoTaskManagerVariant() : variant(plan);
        Path dir = context.newDir(id);
        List<Run> runs = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1)
                .networkDataExchange(tcp()).build()) {
            LongSupplier tcpBytes = () -> cluster.networkEnvironments().stream()
                    .mapToLong(e -> e.metrics().bytesReceived()).sum();
            int taskManagers = 0;
            for (int i = 1; anotherRun(i - 1, plan.throughputRuns(), runs); i++) {
                JobGraph graph = Jobs.unlimitedJob(plan.throughputKeys(), plan.checkpointInterval(), dir,
                        id + " run " + i);
                Run r = measure(cluster, graph, Jobs.keyedVertex(graph),
                        tcp() ? plan.twoTaskManagerWarmup() : plan.throughputWarmup(),
                        tcp() ? plan.twoTaskManagerWindow() : plan.throughputWindow(), tcpBytes, tcp());
                runs.add(r);
                taskManagers = Math.max(taskManagers, r.taskManagers());
                context.progress().line(id, variant, "%s: %,.0f records/s (%,.0f per CPU-second of the JVM),"
                                + " %d checkpoints in the window%s%s", runLabel(i, plan.throughputRuns()),
                        r.recordsPerSecond(),
                        r.recordsPerCpuSecond(), r.checkpoints(), tcp() ? String.format(Locale.ROOT,
                                ", %,d bytes over TCP (%.2f per record)", r.tcpBytes(),
                                r.tcpBytes() / (double) Math.max(1, r.records())) : "",
                        r.invalidity());
            }
            List<Run> valid = runs.stream().filter(Run::valid).toList();
            if (valid.isEmpty()) {
                throw noValidRun(id, runs.size());
            }
            rows.add(scenario, variant, Scenario.Metric.RECORDS_PER_S,
                            Stats.median(valid.stream().map(Run::recordsPerSecond).toList()))
                    .add(scenario, variant, Scenario.Metric.RECORDS_PER_CPU_S,
                            Stats.median(valid.stream().map(Run::recordsPerCpuSecond).toList()))
                    .add(scenario, variant, Scenario.Metric.RUNS, valid.size());
            if (tcp()) {
                double bytesPerRecord = Stats.median(valid.stream()
                        .map(r -> r.tcpBytes() / (double) Math.max(1, r.records())).toList());
                if (!(bytesPerRecord > 0)) {
                    throw new IllegalStateException("No bytes crossed TCP between the task executors while the job"
                            + " ran: the keyed exchange stayed in memory, so this is not a two-task-manager run");
                }
                rows.add(scenario, variant, Scenario.Metric.TASK_MANAGERS, taskManagers)
                        .add(scenario, variant, Scenario.Metric.TCP_BYTES_PER_RECORD, bytesPerRecord);
                check(context, cluster, dir.resolve("check"), rows);
            }
        }
    }

    /**
     * Runs the bounded job over {@code plan.countingCheckRecords()} records on {@code cluster} and adds
     * its rows; fails if a key's count is not exact.
     */
    private void check(HarnessContext context, LocalCluster cluster, Path dir, Results rows) throws Exception {
        Plan plan = context.plan();
        CountingCheck expected = plan.countingCheck();
        String sinkId = UUID.randomUUID().toString();
        CheckSink.open(sinkId);
        try {
            JobGraph graph = Jobs.countingJob(SequenceSource.bounded(0, expected.records() - 1), plan.throughputKeys(),
                    plan.checkpointInterval(), dir, new CheckSink(sinkId), scenario.id() + " check");
            JobId job = cluster.submit(graph);
            JobResult result = cluster.dispatcher().requestJobResult(job).get(10, TimeUnit.MINUTES);
            if (result.status() != JobStatus.FINISHED) {
                throw new IllegalStateException("The bounded " + scenario.id() + " check job ended " + result.status()
                        + " instead of FINISHED: " + result);
            }
            CheckSink.Counted c = CheckSink.counted(sinkId);
            context.progress().line(scenario.id(), plan.countingCheckVariant(), "%,d counts (expected %,d), sum %,d"
                    + " (expected %,d), largest %,d (expected %,d)", c.received(), expected.records(), c.sum(),
                    expected.expectedSum(), c.max(), expected.perKey());
            expected.problem(c.received(), c.sum(), c.max()).ifPresent(problem -> {
                throw new IllegalStateException(problem);
            });
            rows.add(scenario, plan.countingCheckVariant(), Scenario.Metric.CHECK_RECORDS, c.received())
                    .add(scenario, plan.countingCheckVariant(), Scenario.Metric.CHECK_RECORDS_EXPECTED,
                            expected.records());
        } finally {
            CheckSink.close(sinkId);
        }
    }

    /**
     * Submits {@code graph}, waits until its vertex {@code counted} counts (and, {@code overTcp}, until bytes of
     * this job crossed TCP: under load a remote channel may connect well after the local one, and a window before
     * that measured the start-up), lets it run for {@code warmup}, then measures the records that vertex took in
     * over {@code window}; cancels the job at the end. {@code tcpBytes} reads what crossed TCP so far.
     */
    static Run measure(LocalCluster cluster, JobGraph graph, int counted, Duration warmup, Duration window,
                       LongSupplier tcpBytes, boolean overTcp) throws Exception {
        long bytesBefore = tcpBytes.getAsLong();
        JobId id = cluster.submit(graph);
        DispatcherGateway dispatcher = cluster.dispatcher();
        try {
            awaitCounting(dispatcher, id, counted, 0);
            if (overTcp) {
                Waits.until("job " + id + " to send bytes over TCP between the task executors", Duration.ofSeconds(120),
                        () -> tcpBytes.getAsLong() > bytesBefore);
            }
            Thread.sleep(warmup.toMillis()); // the warm-up window
            long bytes0 = tcpBytes.getAsLong();
            Sample start = Sample.take(dispatcher, id, counted);
            Thread.sleep(window.toMillis()); // the measured window
            Sample end = Sample.take(dispatcher, id, counted);
            long bytes = tcpBytes.getAsLong() - bytes0;
            long records = end.records() - start.records();
            double seconds = (end.nanos() - start.nanos()) / 1e9;
            double cpuSeconds = (end.cpuNanos() - start.cpuNanos()) / 1e9;
            return new Run(records / seconds, cpuSeconds > 0 ? records / cpuSeconds : Double.NaN,
                    end.checkpoints() - start.checkpoints(), end.restarts() != start.restarts(), records, bytes,
                    busyTaskExecutors(cluster));
        } finally {
            cancel(dispatcher, id);
        }
    }

    /** Task executors of {@code cluster} that run at least one task now. */
    private static int busyTaskExecutors(LocalCluster cluster) throws Exception {
        int busy = 0;
        for (TaskExecutor te : cluster.taskExecutors()) {
            if (te.numberOfTasks().get(30, TimeUnit.SECONDS) > 0) {
                busy++;
            }
        }
        return busy;
    }

    /** Waits until the job runs and its keyed vertex took in more than {@code records} records. */
    static void awaitCounting(DispatcherGateway dispatcher, JobId id, int keyedVertex, long records) throws Exception {
        Waits.until("job " + id + " to run and count more than " + records + " records", Duration.ofSeconds(120), () -> {
            JobDetails d = Waits.details(dispatcher, id);
            if (d.status().isTerminal()) {
                throw new IllegalStateException("Job " + id + " ended " + d.status() + ": " + d.failureMessage());
            }
            VertexStatus v = vertex(d, keyedVertex);
            return d.status() == JobStatus.RUNNING && v != null && v.runningSubtasks() == v.parallelism()
                    && v.recordsIn() > records;
        });
    }

    static VertexStatus vertex(JobDetails d, int vertexId) {
        return d.vertices().stream().filter(v -> v.vertexId() == vertexId).findFirst().orElse(null);
    }

    /** Cancels the job and waits until it ended. */
    static void cancel(DispatcherGateway dispatcher, JobId id) throws Exception {
        dispatcher.cancelJob(id).get(60, TimeUnit.SECONDS);
        JobStatus status = dispatcher.requestJobResult(id).get(60, TimeUnit.SECONDS).status();
        if (status != JobStatus.CANCELED) {
            throw new IllegalStateException("Job " + id + " ended " + status + " instead of CANCELED");
        }
    }

    /** The keyed vertex's records-in counter, timed at the midpoint of the request. */
    record Sample(long records, long nanos, long cpuNanos, int restarts, long checkpoints) {
        static Sample take(DispatcherGateway dispatcher, JobId id, int keyedVertex) throws Exception {
            long before = System.nanoTime();
            JobDetails d = Waits.details(dispatcher, id);
            long after = System.nanoTime();
            if (d.status() != JobStatus.RUNNING) {
                throw new IllegalStateException("Throughput job " + id + " is " + d.status() + ", not RUNNING: "
                        + d.failureMessage());
            }
            return new Sample(vertex(d, keyedVertex).recordsIn(), before + (after - before) / 2, processCpuNanos(),
                    d.restarts(), d.checkpoints().completed());
        }

        private static long processCpuNanos() {
            return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                    ? os.getProcessCpuTime() : -1;
        }
    }
}
