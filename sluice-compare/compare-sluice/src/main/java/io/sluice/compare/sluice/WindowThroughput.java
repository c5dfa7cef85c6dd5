package io.sluice.compare.sluice;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.eventtime.TimestampAssigner;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.cluster.LocalCluster;
import io.sluice.compare.Plan;
import io.sluice.compare.Results;
import io.sluice.compare.Scenario;
import io.sluice.compare.Stats;
import io.sluice.compare.WindowWorkload;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * {@link Scenario#WINDOW_TUMBLING} and {@link Scenario#WINDOW_SESSION}: the event-time window job of
 * a {@link WindowWorkload} on a plain {@link LocalCluster} (2 task executors, 1 slot each), parallelism
 * 2, checkpoints every {@code plan.windowCheckpointInterval()}:
 * {@code SequenceSource} with the workload's timestamps and bounded out-of-orderness
 * ({@code plan.windowOutOfOrderness()}, watermarks every 200 ms per source subtask),
 * {@code keyBy(workload.key)}, a tumbling 1 s or a 5 s-gap session window, {@code aggregate} (sum of
 * event times, or count), discarding sink.
 *
 * <p>Throughput: per run a fresh job on an unlimited source; after {@code plan.windowWarmup()} the
 * window vertex's {@code recordsIn} over {@code plan.windowWindow()}, as {@link Throughput} measures;
 * median of the valid ones of {@code plan.windowRuns()} runs (a run in which the job restarted, or whose window
 * vertex took in no record in the window, is left out; if none is valid, one more run is made). Plausibility: one bounded run over the first
 * {@code plan.checkRecords(workload)} records, whose end of input fires every window; its sink counts
 * the results, which must equal {@link WindowWorkload#expected} (windows and the sum of results), or
 * the scenario fails.
 *
 * <p>Threading: harness thread; the functions run on their task threads.
 */
final class WindowThroughput implements ScenarioRunner {
    private final WindowWorkload workload;

    WindowThroughput(WindowWorkload workload) {
        this.workload = workload;
    }

    @Override
    public void run(HarnessContext context, Results rows, Map<String, String> notes) throws Exception {
        Plan plan = context.plan();
        Scenario scenario = workload.scenario();
        String variant = plan.windowVariant();
        Path dir = context.newDir(scenario.id());
        List<Throughput.Run> runs = new ArrayList<>();
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).build()) {
            for (int i = 1; Throughput.anotherRun(i - 1, plan.windowRuns(), runs); i++) {
                Throughput.Run r = measure(cluster, plan, dir.resolve("run" + i));
                runs.add(r);
                context.progress().line(scenario.id(), variant, "%s: %,.0f records/s (%,.0f per CPU-second of"
                                + " the JVM), %d checkpoints in the window%s", Throughput.runLabel(i, plan.windowRuns()),
                        r.recordsPerSecond(), r.recordsPerCpuSecond(), r.checkpoints(), r.invalidity());
            }
            List<Double> rates = runs.stream().filter(Throughput.Run::valid).map(Throughput.Run::recordsPerSecond)
                    .toList();
            List<Double> perCpu = runs.stream().filter(Throughput.Run::valid).map(Throughput.Run::recordsPerCpuSecond)
                    .toList();
            if (rates.isEmpty()) {
                throw Throughput.noValidRun(scenario.id(), runs.size());
            }
            rows.add(scenario, variant, Scenario.Metric.RECORDS_PER_S, Stats.median(rates))
                    .add(scenario, variant, Scenario.Metric.RECORDS_PER_CPU_S, Stats.median(perCpu))
                    .add(scenario, variant, Scenario.Metric.RUNS, rates.size());

            long records = plan.checkRecords(workload);
            WindowWorkload.Expected expected = workload.expected(records);
            CheckSink.Counted counted = check(cluster, plan, dir.resolve("check"), records);
            String checkVariant = plan.windowCheckVariant(workload);
            context.progress().line(scenario.id(), checkVariant, "%,d windows fired (expected %,d), sum of results %,d"
                    + " (expected %,d)", counted.received(), expected.windows(), counted.sum(), expected.resultSum());
            if (counted.received() != expected.windows() || counted.sum() != expected.resultSum()) {
                throw new IllegalStateException("The bounded " + scenario.id() + " run over " + records + " records"
                        + " fired " + counted.received() + " windows with results summing to " + counted.sum()
                        + ", but the workload has " + expected.windows() + " windows summing to "
                        + expected.resultSum() + ": the job computes something else than the workload says");
            }
            rows.add(scenario, checkVariant, Scenario.Metric.WINDOWS_FIRED, counted.received())
                    .add(scenario, checkVariant, Scenario.Metric.WINDOWS_EXPECTED, expected.windows());
        }
    }

    private Throughput.Run measure(LocalCluster cluster, Plan plan, Path checkpointDir) throws Exception {
        JobGraph graph = job(plan, SequenceSource.unbounded(0), new DiscardingSink<>(), checkpointDir,
                workload.scenario().id());
        return Throughput.measure(cluster, graph, Jobs.keyedVertex(graph), plan.windowWarmup(), plan.windowWindow(),
                () -> 0, false);
    }

    private CheckSink.Counted check(LocalCluster cluster, Plan plan, Path checkpointDir, long records) throws Exception {
        String sinkId = UUID.randomUUID().toString();
        CheckSink.open(sinkId);
        try {
            JobGraph graph = job(plan, SequenceSource.bounded(0, records - 1), new CheckSink(sinkId), checkpointDir,
                    workload.scenario().id() + " check");
            JobId id = cluster.submit(graph);
            JobResult result = cluster.dispatcher().requestJobResult(id).get(10, TimeUnit.MINUTES);
            if (result.status() != JobStatus.FINISHED) {
                throw new IllegalStateException("The bounded " + workload.scenario().id() + " check job ended "
                        + result.status() + " instead of FINISHED: " + result);
            }
            return CheckSink.counted(sinkId);
        } finally {
            CheckSink.close(sinkId);
        }
    }

    private JobGraph job(Plan plan, SequenceSource source, SinkFunction<Long> sink, Path checkpointDir, String name) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(Jobs.PARALLELISM)
                .enableCheckpointing(plan.windowCheckpointInterval())
                .setCheckpointDir(checkpointDir.toString());
        WatermarkStrategy<Long> strategy = WatermarkStrategy.<Long>forBoundedOutOfOrderness(plan.windowOutOfOrderness())
                .withTimestampAssigner(new EventTime(workload))
                .withEmitInterval(WatermarkStrategy.DEFAULT_EMIT_INTERVAL);
        Duration size = Duration.ofMillis(workload.windowMillis());
        env.fromSource(source, strategy, "numbers")
                .keyBy(new EventKey(workload), Serializers.LONG)
                .window(workload == WindowWorkload.TUMBLING ? WindowAssigner.tumblingEventTime(size)
                        : WindowAssigner.sessionEventTime(size))
                .aggregate(new SumOfValues(workload))
                .returns(Serializers.LONG)
                .addSink(sink, "results");
        return env.buildJobGraph(name);
    }

    /** {@link WindowWorkload#eventTime}. */
    static final class EventTime implements TimestampAssigner<Long> {
        private static final long serialVersionUID = 1L;
        private final WindowWorkload workload;

        EventTime(WindowWorkload workload) {
            this.workload = workload;
        }

        @Override
        public long extractTimestamp(Long v, long recordTimestamp) {
            return workload.eventTime(v);
        }
    }

    /** {@link WindowWorkload#key}. */
    static final class EventKey implements KeySelector<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final WindowWorkload workload;

        EventKey(WindowWorkload workload) {
            this.workload = workload;
        }

        @Override
        public Long getKey(Long v) {
            return workload.key(v);
        }
    }

    /** Adds up {@link WindowWorkload#value} per window: the event times (tumbling) or a count (session). */
    static final class SumOfValues implements AggregateFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;
        private final WindowWorkload workload;

        SumOfValues(WindowWorkload workload) {
            this.workload = workload;
        }

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long v, Long acc) {
            return acc + workload.value(v);
        }

        @Override
        public Long getResult(Long acc) {
            return acc;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }
}
