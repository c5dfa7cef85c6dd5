package io.sluice.examples;

import io.sluice.api.DataStream;
import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;
import java.util.HashMap;
import java.util.Map;

/**
 * The keyed counting job used by the demo, the exactly-once tests and the benchmark: a sequence
 * {@code 0..records-1}, keyed by {@code value % keys}, a {@link ValueState} counter per key that
 * emits {@code (key, count)} after every record, and a sink.
 *
 * <p>Since the sink sees records again after a restart (it is at-least-once), the job's exact
 * result is the state: the last count emitted per key, which must equal
 * {@link #expectedCounts}.
 */
public final class KeyedCountingJob {
    private KeyedCountingJob() {}

    /** Adds the job to {@code env}. */
    public static void build(StreamExecutionEnvironment env, SequenceSource source, int keys,
                             InjectedFailures failures, SinkFunction<Tuple2<Long, Long>> sink) {
        DataStream<Long> numbers = env.fromSource(source, "numbers");
        numbers.keyBy(new ModKey(keys))
                .map(new CountPerKey(keys, failures)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
    }

    /** The exact count per key for the values {@code 0..records-1}. */
    public static Map<Long, Long> expectedCounts(long records, int keys) {
        Map<Long, Long> expected = new HashMap<>();
        for (long k = 0; k < keys && k < records; k++) {
            expected.put(k, records / keys + (k < records % keys ? 1 : 0));
        }
        return expected;
    }

    /** {@code value % keys}. */
    public record ModKey(int keys) implements io.sluice.api.functions.KeySelector<Long, Long> {
        @Override
        public Long getKey(Long value) {
            return value % keys;
        }
    }

    /** Counts records per key in keyed state; may fail on purpose after updating its state. */
    public static final class CountPerKey implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private final int keys;
        private final InjectedFailures failures;
        private transient ValueState<Long> count;

        public CountPerKey(int keys, InjectedFailures failures) {
            this.keys = keys;
            this.failures = failures;
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
            // Fail after the state changed: a correct restore must undo this update.
            failures.maybeFail(value);
            return new Tuple2<>(value % keys, next);
        }
    }
}
