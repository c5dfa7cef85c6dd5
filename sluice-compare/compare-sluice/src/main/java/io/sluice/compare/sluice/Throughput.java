package io.sluice.compare.sluice;

import io.sluice.cluster.LocalCluster;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Stats;
import io.sluice.dispatcher.DispatcherGateway;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.jobmaster.JobDetails;
import io.sluice.jobmaster.JobStatus;
import io.sluice.jobmaster.VertexStatus;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@link Scenario#THROUGHPUT}: the keyed counting job with an unlimited source and
 * {@code plan.throughputKeys()} keys on a plain {@link LocalCluster} (2 task executors, 1 slot each,
 * HA in memory), checkpoints every {@code plan.checkpointInterval()} to local disk. Per run, a fresh
 * job: once its keyed vertex counts, {@code plan.throughputWarmup()}, then the records its keyed
 * vertex took in ({@code recordsIn} of the job details, sampled at both ends) over
 * {@code plan.throughputWindow()}, as {@code io.sluice.bench.ThroughputBenchmark} measures. A run in
 * which the job restarted is invalid and left out.
 */
final class Throughput implements ScenarioRunner {
    private static final String ID = Scenario.THROUGHPUT.id();

    /** One measured window. */
    record Run(double recordsPerSecond, double recordsPerCpuSecond, long checkpoints, boolean valid) {
    }

    /** The variant label: {@code "parallelism 2, checkpoints every 1000 ms"}. */
    static String variant(Plan plan) {
        return String.format(Locale.ROOT, "parallelism %d, checkpoints every %d ms", Jobs.PARALLELISM,
                plan.checkpointInterval().toMillis());
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        String variant = variant(plan);
        Path dir = context.newDir("throughput");
        List<Run> runs = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).build()) {
            for (int i = 1; i <= plan.throughputRuns(); i++) {
                Run r = measure(cluster, plan, dir, i);
                runs.add(r);
                context.progress().line(ID, variant, "run %d/%d: %,.0f records/s (%,.0f per CPU-second of the JVM),"
                                + " %d checkpoints in the window%s", i, plan.throughputRuns(), r.recordsPerSecond(),
                        r.recordsPerCpuSecond(), r.checkpoints(), r.valid() ? "" : "; INVALID: the job restarted");
            }
        }
        List<Double> valid = runs.stream().filter(Run::valid).map(Run::recordsPerSecond).toList();
        if (valid.isEmpty()) {
            throw new IllegalStateException("No valid throughput run: the job restarted in every run; see the"
                    + " runtime's warnings on stderr");
        }
        List<Double> perCpu = runs.stream().filter(Run::valid).map(Run::recordsPerCpuSecond).toList();
        rows.add(Scenario.THROUGHPUT, variant, Scenario.Metric.RECORDS_PER_S, Stats.median(valid))
                .add(Scenario.THROUGHPUT, variant, Scenario.Metric.RECORDS_PER_CPU_S, Stats.median(perCpu))
                .add(Scenario.THROUGHPUT, variant, Scenario.Metric.RUNS, valid.size());
    }

    private static Run measure(LocalCluster cluster, Plan plan, Path dir, int index) throws Exception {
        JobGraph graph = Jobs.unlimitedJob(plan.throughputKeys(), plan.checkpointInterval(), dir, "throughput run " + index);
        int keyed = Jobs.keyedVertex(graph);
        JobId id = cluster.submit(graph);
        DispatcherGateway dispatcher = cluster.dispatcher();
        try {
            awaitCounting(dispatcher, id, keyed, 0);
            Thread.sleep(plan.throughputWarmup().toMillis()); // the warm-up window
            Sample start = Sample.take(dispatcher, id, keyed);
            Thread.sleep(plan.throughputWindow().toMillis()); // the measured window
            Sample end = Sample.take(dispatcher, id, keyed);
            long records = end.records() - start.records();
            double seconds = (end.nanos() - start.nanos()) / 1e9;
            double cpuSeconds = (end.cpuNanos() - start.cpuNanos()) / 1e9;
            boolean valid = end.restarts() == start.restarts() && records > 0;
            return new Run(records / seconds, cpuSeconds > 0 ? records / cpuSeconds : Double.NaN,
                    end.checkpoints() - start.checkpoints(), valid);
        } finally {
            cancel(dispatcher, id);
        }
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
