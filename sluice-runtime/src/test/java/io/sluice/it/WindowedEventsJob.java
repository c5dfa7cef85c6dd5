package io.sluice.it;


import io.sluice.api.DataStream;
import io.sluice.api.KeyedStream;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.tuple.Tuple3;
import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.ProcessWindowFunction;
import io.sluice.api.sink.CollectingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.examples.InjectedFailures;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;

/**
 * The windowed job of {@link WindowPropertyITCase} (also run on ZooKeeper HA by that module's
 * tests, through sluice-runtime's test jar): a seeded random event stream whose disorder is bounded
 * by {@link #DISORDER} through tumbling (aggregate), sliding and session (process) event-time windows,
 * and the plain-Java reference of its results, keyed "kind|key|start|end".
 */
public final class WindowedEventsJob {
    private WindowedEventsJob() {}

    public static final long[] SEEDS = {1L, 42L, 20261201L};
    public static final int KEYS = 7;
    public static final long STEP = 3;
    /** The largest amount a record's timestamp may be behind an earlier record's. */
    public static final long DISORDER = 40;
    public static final long TUMBLE = 100;
    public static final long SLIDE_SIZE = 200;
    public static final long SLIDE = 50;
    public static final long GAP = 30;

    /** Event i of a seed: (key, timestamp, value), a pure function so that every run and replay sees the same events. */
    public static Tuple3<Long, Long, Long> event(long seed, long i) {
        SplittableRandom r = new SplittableRandom(seed * 1_000_003L + i);
        long key = r.nextInt(KEYS);
        // Ascending with a pause every 400 events (sessions end), minus a jitter of up to DISORDER.
        long ts = 1_000 + i * STEP + (i / 400) * 500 + DISORDER - r.nextLong(DISORDER + 1);
        return Tuple3.of(key, ts, 1 + (long) r.nextInt(100));
    }

    /** The reference: plain Java over the same events. Keys are "kind|key|start|end". */
    public static Map<String, Long> reference(long seed, long events) {
        Map<String, Long> out = new HashMap<>();
        Map<Long, TreeMap<Long, Long>> byKey = new HashMap<>(); // key -> ts -> summed values
        for (long i = 0; i < events; i++) {
            Tuple3<Long, Long, Long> e = event(seed, i);
            long ts = e.f1();
            long start = Math.floorDiv(ts, TUMBLE) * TUMBLE;
            out.merge(id("tumble", e.f0(), start, start + TUMBLE), e.f2(), Long::sum);
            for (long s = Math.floorDiv(ts, SLIDE) * SLIDE; s > ts - SLIDE_SIZE; s -= SLIDE) {
                out.merge(id("slide", e.f0(), s, s + SLIDE_SIZE), e.f2(), Long::sum);
            }
            byKey.computeIfAbsent(e.f0(), k -> new TreeMap<>()).merge(ts, e.f2(), Long::sum);
        }
        byKey.forEach((key, series) -> {
            long start = Long.MIN_VALUE;
            long end = Long.MIN_VALUE;
            long sum = 0;
            for (Map.Entry<Long, Long> t : series.entrySet()) {
                if (start != Long.MIN_VALUE && t.getKey() >= end) {
                    out.put(id("session", key, start, end), sum);
                    start = Long.MIN_VALUE;
                }
                if (start == Long.MIN_VALUE) {
                    start = t.getKey();
                    sum = 0;
                }
                end = Math.max(end, t.getKey() + GAP);
                sum += t.getValue();
            }
            out.put(id("session", key, start, end), sum);
        });
        return out;
    }

    public static String id(String kind, long key, long start, long end) {
        return kind + "|" + key + "|" + start + "|" + end;
    }

    /** Adds the job over {@code events} events of {@code seed} (at {@code rate} per second, unpaced when 0) to {@code env}. */
    public static void build(StreamExecutionEnvironment env, long seed, long events, double rate,
                              InjectedFailures failures, CollectingSink<Tuple2<String, Long>> sink) {
        SequenceSource source = SequenceSource.bounded(0, events - 1);
        if (rate > 0) {
            source = source.withRate(rate);
        }
        KeyedStream<Tuple3<Long, Long, Long>, Long> keyed = env.fromSource(source, "indices")
                .map(new ToEvent(seed, failures))
                .assignTimestampsAndWatermarks(WatermarkStrategy.<Tuple3<Long, Long, Long>>forBoundedOutOfOrderness(
                        Duration.ofMillis(DISORDER)).withTimestampAssigner((e, p) -> e.f1())
                        .withEmitInterval(Duration.ofMillis(5)))
                .keyBy(Tuple3::f0);
        DataStream<Tuple2<String, Long>> tumbling = keyed.window(WindowAssigner.tumblingEventTime(Duration.ofMillis(TUMBLE)))
                .aggregate(new SumWithWindow());
        DataStream<Tuple2<String, Long>> sliding = keyed
                .window(WindowAssigner.slidingEventTime(Duration.ofMillis(SLIDE_SIZE), Duration.ofMillis(SLIDE)))
                .process(new SumPerWindow("slide"));
        DataStream<Tuple2<String, Long>> sessions = keyed.window(WindowAssigner.sessionEventTime(Duration.ofMillis(GAP)))
                .process(new SumPerWindow("session"));
        tumbling.union(sliding, sessions).addSink(sink, "results");
    }

    static final class ToEvent implements MapFunction<Long, Tuple3<Long, Long, Long>> {
        private final long seed;
        private final InjectedFailures failures;

        ToEvent(long seed, InjectedFailures failures) {
            this.seed = seed;
            this.failures = failures;
        }

        @Override
        public Tuple3<Long, Long, Long> map(Long i) {
            failures.maybeFail(i);
            return event(seed, i);
        }
    }

    /** Tumbling windows by an accumulator (key, a timestamp of the window, sum). */
    static final class SumWithWindow implements AggregateFunction<Tuple3<Long, Long, Long>, Tuple3<Long, Long, Long>,
            Tuple2<String, Long>> {
        @Override
        public Tuple3<Long, Long, Long> createAccumulator() {
            return null;
        }

        @Override
        public Tuple3<Long, Long, Long> add(Tuple3<Long, Long, Long> e, Tuple3<Long, Long, Long> acc) {
            return acc == null ? e : Tuple3.of(acc.f0(), acc.f1(), acc.f2() + e.f2());
        }

        @Override
        public Tuple2<String, Long> getResult(Tuple3<Long, Long, Long> acc) {
            long start = Math.floorDiv(acc.f1(), TUMBLE) * TUMBLE;
            return Tuple2.of(id("tumble", acc.f0(), start, start + TUMBLE), acc.f2());
        }

        @Override
        public Tuple3<Long, Long, Long> merge(Tuple3<Long, Long, Long> a, Tuple3<Long, Long, Long> b) {
            return Tuple3.of(a.f0(), a.f1(), a.f2() + b.f2());
        }
    }

    static final class SumPerWindow extends ProcessWindowFunction<Tuple3<Long, Long, Long>, Tuple2<String, Long>, Long> {
        private final String kind;

        SumPerWindow(String kind) {
            this.kind = kind;
        }

        @Override
        public void process(Long key, Context context, Iterable<Tuple3<Long, Long, Long>> elements,
                            Collector<Tuple2<String, Long>> out) {
            long sum = 0;
            for (Tuple3<Long, Long, Long> e : elements) {
                sum += e.f2();
            }
            out.collect(Tuple2.of(id(kind, key, context.window().start(), context.window().end()), sum));
        }
    }
}
