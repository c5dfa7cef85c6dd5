package io.sluice.examples.jobs;

import io.sluice.api.DataStream;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;
import java.time.Duration;
import java.util.Set;

/**
 * The keyed counting job: the numbers {@code 0..records-1} (or without end, {@code --records 0}),
 * paced to {@code --rate} per second, keyed by {@code value % keys}; a counter per key in keyed
 * state emits {@code (key, count)} for every number, as {@code key,count} lines to part files under
 * {@code --output DIR}, or nowhere without it.
 *
 * <pre>
 *   sluice run sluice-examples.jar -- --records 1000000 --keys 64 --rate 10000
 *   java -cp sluice-examples.jar:sluice.jar io.sluice.examples.jobs.KeyedCountingExample --records 100000
 * </pre>
 * Parallelism, restarts and checkpoints come from the run's configuration ({@code sluice run
 * --parallelism N -D checkpoints.interval=5s ...}); since the job's state is its result, it
 * checkpoints every second when the run configures no interval, so a failure or a cluster restart
 * resumes the counts instead of starting over.
 *
 * <p>{@code --source-parallelism N} runs the source at {@code N} whatever the job's parallelism. Without it
 * the source rescales with the job ({@code sluice rescale <job> 4 sluice-examples.jar -- ...}): the sequence
 * source's new readers split what the old ones had left. With it, {@code sluice rescale <job> 4
 * sluice-examples.jar -- --source-parallelism 2 ...} changes the counting's parallelism only.
 */
public final class KeyedCountingExample {
    private KeyedCountingExample() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, Set.of("records", "keys", "rate", "output", "source-parallelism"));
        long records = args.getLong("records", 1_000_000);
        long keys = args.getLong("keys", 64);
        long rate = args.getLong("rate", 10_000);
        String output = args.optional("output");
        long sourceParallelism = args.getLong("source-parallelism", 0);
        if (sourceParallelism < 0) {
            throw new IllegalArgumentException("--source-parallelism must be 1 or more (0 or none: the job's"
                    + " parallelism); got " + sourceParallelism);
        }
        if (records < 0 || keys < 1 || rate < 0) {
            throw new IllegalArgumentException("--records must be 0 (no end) or more, --keys at least 1, --rate 0"
                    + " (unlimited) or more; got " + records + ", " + keys + ", " + rate);
        }

        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        if (env.getCheckpointInterval().isZero()) {
            env.enableCheckpointing(Duration.ofSeconds(1));
        }
        SequenceSource source = records == 0 ? SequenceSource.unbounded(0) : SequenceSource.bounded(0, records - 1);
        if (rate > 0) {
            source = source.withRate(rate);
        }
        var numbers = env.fromSource(source, "numbers");
        if (sourceParallelism > 0) {
            numbers.setParallelism((int) sourceParallelism); // whatever the job's parallelism (see the class doc)
        }
        DataStream<Tuple2<Long, Long>> counts = numbers
                .keyBy(new ModKey(keys))
                .map(new CountPerKey(keys)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG));
        if (output != null) {
            counts.map(new CsvLine()).returns(Serializers.STRING).writeAsTextAtLeastOnce(output);
        } else {
            counts.addSink(new DiscardingSink<>(), "discard");
        }
        env.execute("keyed counting" + (records == 0 ? "" : " of " + records + " records") + " over " + keys + " keys");
    }

    /** {@code value % keys}. */
    public static final class ModKey implements KeySelector<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final long keys;

        public ModKey(long keys) {
            this.keys = keys;
        }

        @Override
        public Long getKey(Long value) {
            return value % keys;
        }
    }

    /** {@code key,count}. */
    public static final class CsvLine implements MapFunction<Tuple2<Long, Long>, String> {
        private static final long serialVersionUID = 1L;

        @Override
        public String map(Tuple2<Long, Long> pair) {
            return pair.f0() + "," + pair.f1();
        }
    }

    /** Counts the numbers per key in a {@code ValueState<Long>} and emits {@code (key, count)}. */
    public static final class CountPerKey implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private static final long serialVersionUID = 1L;
        private final long keys;
        private transient ValueState<Long> count;

        public CountPerKey(long keys) {
            this.keys = keys;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            return new Tuple2<>(value % keys, next);
        }
    }
}
