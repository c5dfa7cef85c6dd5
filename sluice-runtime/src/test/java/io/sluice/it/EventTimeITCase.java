package io.sluice.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.DataStream;
import io.sluice.api.functions.OutputTag;
import io.sluice.api.SingleOutputStreamOperator;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple3;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.KeyedProcessFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.cluster.LocalCluster;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobId;
import io.sluice.protocol.JobDetails;
import io.sluice.job.JobResult;
import io.sluice.job.JobStatus;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Event time end to end: two sources with a watermark strategy each (timestamp = value), a union
 * and a keyBy into a {@link KeyedProcessFunction} that counts per key and 100 ms of event time and
 * emits the count from an event-time timer at the end of each range. Record timestamps arrive
 * intact, no record is behind the watermark (the strategy allows no disorder, the timestamps
 * ascend per subtask), the final watermark of the bounded sources fires every pending timer, and
 * with a task failure in the middle each (key, range) ends with the exact count: timers pending at
 * the checkpoint fire once after the restore (a timer per key beyond all data, registered only at
 * the key's first record, fires with the final watermark with the key's total).
 */
class EventTimeITCase {
    private static final long RECORDS = 20_000;
    private static final long RANGE = 100;
    /** A timer beyond all data, registered once per key at its first record: fires only with the final watermark. */
    private static final long FINAL = 1_000_000_000L;
    private static LocalCluster cluster;

    @TempDir
    static Path checkpoints;

    @BeforeAll
    static void start() {
        cluster = LocalCluster.builder().taskExecutors(1).slotsPerTaskExecutor(4).build();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void countsPerKeyAndRangeFromEventTimeTimersThroughUnionAndKeyBy() throws Exception {
        run("no failure", InjectedFailures.none(), 0);
    }

    @Test
    void pendingTimersFireExactlyOnceAfterATaskFailure() throws Exception {
        run("failure", InjectedFailures.at(Set.of(RECORDS / 2 + 7)), 1);
    }

    @Test
    void processingTimeWindowsStillOpenWhenABoundedInputEndsFireThen() throws Exception {
        CollectingSink<Long> sums = CollectingSink.create();
        try {
            // An hour-long processing-time window cannot end during this job: only the end of input fires it.
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
            env.fromSource(SequenceSource.bounded(1, 10_000), "numbers")
                    .keyBy(v -> v % 4)
                    .window(WindowAssigner.tumblingProcessingTime(Duration.ofHours(1)))
                    .reduce(Long::sum)
                    .addSink(sums, "sums");
            JobId id = cluster.submit(env.buildJobGraph("processing-time windows at the end of input"));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(sums.count()).as("one result per key (the window may straddle an hour: then two)")
                    .isBetween(4, 8);
            assertThat(sums.results().stream().mapToLong(Long::longValue).sum()).isEqualTo(10_000L * 10_001 / 2);
        } finally {
            sums.release();
        }
    }

    @Test
    void aProcessFunctionsSideOutputIsAStreamOfItsOwnWithTimestamps() throws Exception {
        OutputTag<String> multiples = new OutputTag<>("multiples of 1000", Serializers.STRING);
        CollectingSink<Long> main = CollectingSink.create();
        CollectingSink<String> side = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2);
            SingleOutputStreamOperator<Long> processed = env.fromSource(SequenceSource.bounded(0, 9_999),
                            WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, p) -> v * 10),
                            "numbers")
                    .keyBy(v -> v % 3)
                    .process(new SplitMultiples(multiples));
            processed.addSink(main, "main");
            processed.getSideOutput(multiples)
                    .keyBy(s -> s.length()).process(new WithTimestamp()) // the side edge carries timestamps too
                    .addSink(side, "side");
            JobId id = cluster.submit(env.buildJobGraph("side outputs"));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as(result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);
            assertThat(side.results()).containsExactlyInAnyOrder("side 0@0 ts=0", "side 1000@10000 ts=10000", "side 2000@20000 ts=20000",
                    "side 3000@30000 ts=30000", "side 4000@40000 ts=40000", "side 5000@50000 ts=50000", "side 6000@60000 ts=60000", "side 7000@70000 ts=70000",
                    "side 8000@80000 ts=80000", "side 9000@90000 ts=90000");
            assertThat(main.count()).isEqualTo(10_000 - 10);
        } finally {
            main.release();
            side.release();
        }
    }

    private void run(String name, InjectedFailures failures, int expectedFailures) throws Exception {
        CollectingSink<Tuple3<Long, Long, Long>> sink = CollectingSink.create();
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(2)
                    .enableCheckpointing(Duration.ofMillis(50))
                    .setCheckpointDir(checkpoints.resolve(name.replace(' ', '-')).toString())
                    .setRestartStrategy(new RestartStrategyConfig.FixedDelay(3, Duration.ZERO));
            WatermarkStrategy<Long> strategy = WatermarkStrategy.<Long>forMonotonousTimestamps()
                    .withTimestampAssigner((v, previous) -> v).withEmitInterval(Duration.ofMillis(5));
            DataStream<Long> a = env.fromSource(SequenceSource.bounded(0, RECORDS - 1).withRate(20_000), strategy, "a");
            DataStream<Long> b = env.fromSource(SequenceSource.bounded(0, RECORDS - 1).withRate(20_000), strategy, "b");
            a.union(b).keyBy(v -> v % 10).process(new CountPerRange(failures)).name("count per range")
                    .addSink(sink, "results");
            JobId id = cluster.submit(env.buildJobGraph("event time: " + name));
            JobResult result = cluster.dispatcher().requestJobResult(id).get(2, TimeUnit.MINUTES);
            assertThat(result.status()).as("%s: %s", name, result.failureStackTrace()).isEqualTo(JobStatus.FINISHED);

            Map<List<Long>, Long> expected = new HashMap<>();
            for (long v = 0; v < RECORDS; v++) {
                expected.merge(List.of(v % 10, v / RANGE * RANGE + RANGE - 1), 2L, Long::sum);
                expected.merge(List.of(v % 10, FINAL), 2L, Long::sum);
            }
            Map<List<Long>, Long> last = CollectingSink.lastValuePerKey(sink.results(),
                    t -> List.of(t.f0(), t.f1()), Tuple3::f2);
            assertThat(last).as(name).isEqualTo(expected);
            assertThat(failures.thrown()).isEqualTo(expectedFailures);
            if (expectedFailures > 0) {
                JobDetails details = cluster.dispatcher().requestJobDetails(id).get(10, TimeUnit.SECONDS);
                assertThat(details.checkpoints().completed()).as("checkpoints completed").isPositive();
            }
        } finally {
            failures.release();
            sink.release();
        }
    }

    /** Appends the timestamp the record arrived with. */
    static final class WithTimestamp extends KeyedProcessFunction<Integer, String, String> {
        @Override
        public void processElement(String value, Context<Integer> ctx, Collector<String> out) {
            out.collect("side " + value + " ts=" + ctx.timestamp());
        }
    }

    /** Emits multiples of 1000 (with their timestamp) to a side output, the rest to the main output. */
    static final class SplitMultiples extends KeyedProcessFunction<Long, Long, Long> {
        private final OutputTag<String> tag;

        SplitMultiples(OutputTag<String> tag) {
            this.tag = tag;
        }

        @Override
        public void processElement(Long value, Context<Long> ctx, Collector<Long> out) {
            if (value % 1000 == 0) {
                ctx.output(tag, value + "@" + ctx.timestamp());
            } else {
                out.collect(value);
            }
        }
    }

    /** Counts per key and range [n*100, n*100+99] of event time; emits (key, range end, count) when the range's timer fires. */
    static final class CountPerRange extends KeyedProcessFunction<Long, Long, Tuple3<Long, Long, Long>> {
        private final InjectedFailures failures;
        private transient MapState<Long, Long> counts;

        CountPerRange(InjectedFailures failures) {
            this.failures = failures;
        }

        @Override
        public void open(RuntimeContext context) {
            counts = context.getMapState(new MapStateDescriptor<>("counts", Serializers.LONG, Serializers.LONG));
        }

        @Override
        public void processElement(Long value, Context<Long> ctx, Collector<Tuple3<Long, Long, Long>> out) {
            if (ctx.timestamp() == null || ctx.timestamp() != value.longValue()) {
                throw new AssertionError("Record " + value + " arrived with timestamp " + ctx.timestamp());
            }
            if (ctx.timerService().currentWatermark() >= value) {
                throw new AssertionError("Record " + value + " is behind the watermark "
                        + ctx.timerService().currentWatermark() + " although the strategy allows no disorder");
            }
            long end = value / RANGE * RANGE + RANGE - 1;
            Long c = counts.get(end);
            counts.put(end, c == null ? 1 : c + 1);
            ctx.timerService().registerEventTimeTimer(end);
            Long total = counts.get(FINAL);
            if (total == null) {
                // Registered once: if a restore lost it, nothing would register it again.
                ctx.timerService().registerEventTimeTimer(FINAL);
            }
            counts.put(FINAL, total == null ? 1 : total + 1);
            failures.maybeFail(value);
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext<Long> ctx, Collector<Tuple3<Long, Long, Long>> out) {
            Long c = counts.get(timestamp);
            counts.remove(timestamp);
            out.collect(Tuple3.of(ctx.getCurrentKey(), timestamp, c));
        }
    }
}
