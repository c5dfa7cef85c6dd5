package io.sluice.bench;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.eventtime.TimestampAssigner;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.cluster.LocalCluster;
import io.sluice.core.serialization.Serializers;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobId;
import io.sluice.graph.JobVertex;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Event-time window throughput on a {@link LocalCluster} (2 task executors of one slot, parallelism
 * 2, checkpoints every second), measured like {@link ThroughputBenchmark}: the window vertex's own
 * records-in counter over a wall-clock window, plus records per CPU-second of the JVM.
 *
 * <p>The source is {@code SequenceSource.unbounded(0)}; record {@code v} becomes an event whose
 * event time is derived from {@code v}, so event time advances with the stream and windows keep
 * firing (monotonous timestamps per source subtask, watermarks every 200 ms):
 * <ul>
 *   <li>{@link Scenario#TUMBLING_SUM}: key {@code v % 1024}, time {@code v / 1000} ms (a 1 s window
 *       holds 1 M records, about 1,000 per key); a 1 s tumbling event-time window sums the values
 *       ({@code aggregate}).</li>
 *   <li>{@link Scenario#SESSION_COUNT}: key {@code (v / 4) % 100,000} (four records in a row per
 *       key), time {@code v / 40} ms, so each key comes back every 10 s of event time: its session of
 *       four records closes after the 5 s gap; about 50,000 sessions are open at any time.</li>
 * </ul>
 *
 * <pre>
 * java -Xmx2g -cp ... io.sluice.bench.EventTimeBenchmark [--seconds 10] [--warmup-seconds 10] [--runs 3]
 *      [--scenario tumbling|session] [--smoke]
 * </pre>
 */
public final class EventTimeBenchmark {
    public static final int PARALLELISM = 2;

    private EventTimeBenchmark() {}

    /** The measured jobs. */
    public enum Scenario {
        TUMBLING_SUM("tumbling 1 s event-time window sum, 1,024 keys"),
        SESSION_COUNT("session window (5 s gap) count, 100,000 keys");

        final String label;

        Scenario(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** Benchmark settings. */
    public record Options(Duration window, Duration warmup, int runs, List<Scenario> scenarios) {
        public Options {
            if (window.isNegative() || window.isZero() || runs < 1 || scenarios.isEmpty()) {
                throw new IllegalArgumentException("window must be positive, runs >= 1, and some scenario given");
            }
            scenarios = List.copyOf(scenarios);
        }

        public static Options defaults() {
            return new Options(Duration.ofSeconds(10), Duration.ofSeconds(10), 3, List.of(Scenario.values()));
        }

        /** For CI: 1-second windows, one run per scenario. */
        public static Options smoke() {
            return new Options(Duration.ofSeconds(1), Duration.ofSeconds(1), 1, List.of(Scenario.values()));
        }
    }

    /** One measured window. */
    public record Run(Scenario scenario, long records, long nanos, long cpuNanos, long checkpoints, boolean valid) {
        public double recordsPerSecond() {
            return records * 1e9 / nanos;
        }

        public double recordsPerCpuSecond() {
            return cpuNanos <= 0 ? Double.NaN : records * 1e9 / cpuNanos;
        }
    }

    /** The runs of one scenario. */
    public record Result(Scenario scenario, List<Run> runs) {
        public double median() {
            return median(Run::recordsPerSecond);
        }

        public double medianPerCpuSecond() {
            return median(Run::recordsPerCpuSecond);
        }

        private double median(java.util.function.ToDoubleFunction<Run> metric) {
            double[] v = runs.stream().filter(Run::valid).mapToDouble(metric).sorted().toArray();
            if (v.length == 0) {
                return Double.NaN;
            }
            int m = v.length / 2;
            return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
        }
    }

    public static void main(String[] args) throws Exception {
        run(parse(args), System.out);
        System.exit(0);
    }

    static Options parse(String[] args) {
        Options o = Options.defaults();
        Duration window = null;
        Duration warmup = null;
        Integer runs = null;
        List<Scenario> scenarios = o.scenarios();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--smoke" -> o = Options.smoke();
                case "--seconds" -> window = Duration.ofMillis(Math.round(Double.parseDouble(args[++i]) * 1000));
                case "--warmup-seconds" -> warmup = Duration.ofMillis(Math.round(Double.parseDouble(args[++i]) * 1000));
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--scenario" -> scenarios = List.of(switch (args[++i]) {
                    case "tumbling" -> Scenario.TUMBLING_SUM;
                    case "session" -> Scenario.SESSION_COUNT;
                    default -> throw new IllegalArgumentException("--scenario takes 'tumbling' or 'session', not " + args[i]);
                });
                default -> throw new IllegalArgumentException("Unknown option " + args[i] + "; options: --seconds N"
                        + " --warmup-seconds N --runs N --scenario tumbling|session --smoke");
            }
        }
        Duration w = window != null ? window : o.window();
        return new Options(w, warmup != null ? warmup : (window != null ? window : o.warmup()),
                runs != null ? runs : o.runs(), scenarios);
    }

    /** Runs every scenario of {@code options}, printing each run and the medians to {@code out}. */
    public static List<Result> run(Options options, PrintStream out) throws Exception {
        out.printf(Locale.ROOT, "Sluice event-time windows: parallelism %d, checkpoints every 1 s, %d cores, JVM %s, max heap %d MiB%n",
                PARALLELISM, Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.version"),
                Runtime.getRuntime().maxMemory() >> 20);
        out.printf(Locale.ROOT, "warm-up %.1f s, then %d measured run(s) of %.1f s per scenario (each a fresh job)%n",
                options.warmup().toMillis() / 1e3, options.runs(), options.window().toMillis() / 1e3);
        List<Result> results = new ArrayList<>();
        Path checkpoints = Files.createTempDirectory("sluice-bench-eventtime");
        try (LocalCluster cluster = LocalCluster.builder().taskExecutors(2).slotsPerTaskExecutor(1).build()) {
            for (Scenario scenario : options.scenarios()) {
                out.printf(Locale.ROOT, "-- %s%n", scenario.label());
                print(out, "warm-up", measure(cluster, scenario, checkpoints, options.warmup()));
                List<Run> runs = new ArrayList<>();
                for (int i = 1; i <= options.runs(); i++) {
                    Run r = measure(cluster, scenario, checkpoints, options.window());
                    runs.add(r);
                    print(out, "run " + i, r);
                }
                results.add(new Result(scenario, runs));
            }
        } finally {
            ThroughputBenchmark.deleteRecursively(checkpoints);
        }
        out.println();
        for (Result r : results) {
            out.printf(Locale.ROOT, "MEDIAN %-50s %,14.0f records/s  %,14.0f records per CPU-second%n",
                    r.scenario().label(), r.median(), r.medianPerCpuSecond());
        }
        out.flush();
        return results;
    }

    private static void print(PrintStream out, String what, Run r) {
        out.printf(Locale.ROOT, "   %-8s %,14.0f records/s  %,12.0f rec/CPU-s  (%,d records in %.2f s, %d checkpoints)%s%n",
                what, r.recordsPerSecond(), r.recordsPerCpuSecond(), r.records(), r.nanos() / 1e9, r.checkpoints(),
                r.valid() ? "" : "  INVALID: the job restarted, excluded");
        out.flush();
    }

    /** The job of {@code scenario}. */
    public static JobGraph buildJob(Scenario scenario, Path checkpointDir) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(PARALLELISM)
                .enableCheckpointing(Duration.ofSeconds(1)).setCheckpointDir(checkpointDir.toString());
        boolean tumbling = scenario == Scenario.TUMBLING_SUM;
        env.fromSource(SequenceSource.unbounded(0), "sequence")
                .map(tumbling ? new ToEvent(1024, 1, 1000) : new ToEvent(100_000, 4, 40)).name("to event")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple2<Long, Long>>forMonotonousTimestamps()
                        .withTimestampAssigner(new EventTime()))
                .keyBy(new EventKey())
                .window(tumbling ? WindowAssigner.tumblingEventTime(Duration.ofSeconds(1))
                        : WindowAssigner.sessionEventTime(Duration.ofSeconds(5)))
                .aggregate(tumbling ? new SumValues() : new CountRecords())
                .returns(Serializers.LONG)
                .addSink(new DiscardingSink<>(), "discard");
        return env.buildJobGraph("event-time " + scenario.name());
    }

    private static Run measure(LocalCluster cluster, Scenario scenario, Path checkpointDir, Duration window) throws Exception {
        JobGraph graph = buildJob(scenario, checkpointDir);
        int windowVertex = graph.vertices().stream().filter(JobVertex::hasKeyedState).mapToInt(JobVertex::id)
                .findFirst().orElseThrow();
        JobId id = cluster.submit(graph);
        try {
            ThroughputBenchmark.awaitCounting(cluster, id, windowVertex);
            Thread.sleep(1_000); // let the first checkpoints and window firings settle
            ThroughputBenchmark.Sample start = ThroughputBenchmark.sample(cluster, id, windowVertex);
            Thread.sleep(window.toMillis());
            ThroughputBenchmark.Sample end = ThroughputBenchmark.sample(cluster, id, windowVertex);
            return new Run(scenario, end.records() - start.records(), end.nanos() - start.nanos(),
                    end.cpuNanos() - start.cpuNanos(), end.checkpoints() - start.checkpoints(),
                    end.restarts() == start.restarts() && end.records() >= start.records());
        } finally {
            cluster.dispatcher().cancelJob(id).get(60, TimeUnit.SECONDS);
            JobResult result = cluster.dispatcher().requestJobResult(id).get(60, TimeUnit.SECONDS);
            if (result.status() != JobStatus.CANCELED) {
                throw new IllegalStateException("Benchmark job ended " + result.status() + ": " + result);
            }
        }
    }

    /**
     * {@code v} to (key, event time): time {@code v / perMilli} ms, key {@code (v / run) % keys} ({@code run}
     * records in a row share a key). The time is also the value the tumbling scenario sums.
     */
    static final class ToEvent implements MapFunction<Long, Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;
        private final long keys;
        private final long run;
        private final long perMilli;

        ToEvent(long keys, long run, long perMilli) {
            this.keys = keys;
            this.run = run;
            this.perMilli = perMilli;
        }

        @Override
        public Tuple2<Long, Long> map(Long v) {
            return Tuple2.of((v / run) % keys, v / perMilli);
        }
    }

    /** The event's time (its second field). */
    static final class EventTime implements TimestampAssigner<Tuple2<Long, Long>> {
        private static final long serialVersionUID = 1L;

        @Override
        public long extractTimestamp(Tuple2<Long, Long> e, long previous) {
            return e.f1();
        }
    }

    static final class EventKey implements KeySelector<Tuple2<Long, Long>, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long getKey(Tuple2<Long, Long> e) {
            return e.f0();
        }
    }

    static final class SumValues implements AggregateFunction<Tuple2<Long, Long>, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Tuple2<Long, Long> e, Long acc) {
            return acc + e.f1();
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

    static final class CountRecords implements AggregateFunction<Tuple2<Long, Long>, Long, Long> {
        private static final long serialVersionUID = 1L;

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Tuple2<Long, Long> e, Long acc) {
            return acc + 1;
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
