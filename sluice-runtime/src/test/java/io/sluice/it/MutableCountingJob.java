package io.sluice.it;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.tuple.Tuple2;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The keyed counting job of {@link KeyedCountingJob}, but written as users write it with a mutable
 * accumulator: {@code acc = state.value(); acc.n++; state.update(acc)}, so that a snapshot that
 * shared the value with the task instead of copying it (a torn snapshot) would restore a count
 * from after the checkpoint and fail the exact-count check. It also counts, per run, the keys
 * whose state a restarted subtask found restored from a checkpoint, to prove that restores happen.
 */
final class MutableCountingJob {
    private static final Map<String, AtomicLong> RESTORED_KEYS = new ConcurrentHashMap<>();

    private MutableCountingJob() {}

    /** A run's handle on its restore counter. */
    record Run(String id) {
        long restoredKeys() {
            AtomicLong n = RESTORED_KEYS.get(id);
            return n == null ? 0 : n.get();
        }

        void release() {
            RESTORED_KEYS.remove(id);
        }
    }

    static Run build(StreamExecutionEnvironment env, SequenceSource source, int keys, InjectedFailures failures,
                     SinkFunction<Tuple2<Long, Long>> sink) {
        Run run = new Run(UUID.randomUUID().toString());
        RESTORED_KEYS.put(run.id(), new AtomicLong());
        env.fromSource(source, "numbers")
                .keyBy(new KeyedCountingJob.ModKey(keys))
                .map(new MutableCount(keys, failures, run.id())).name("count per key (mutable accumulator)")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(sink, "results");
        return run;
    }

    /** A mutable counter holder, as users write accumulators. */
    static final class Counter {
        long n;
    }

    /** A user serializer; it does not override {@code copy}, so snapshots use the default copy. */
    static final class CounterSerializer implements TypeSerializer<Counter> {
        @Override
        public void serialize(Counter value, DataOutputBuffer out) {
            out.writeLong(value.n);
        }

        @Override
        public Counter deserialize(DataInputBuffer in) {
            Counter c = new Counter();
            c.n = in.readLong();
            return c;
        }
    }

    static final class MutableCount implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private final int keys;
        private final InjectedFailures failures;
        private final String runId;
        private transient ValueState<Counter> count;
        private transient Set<Long> seen;

        MutableCount(int keys, InjectedFailures failures, String runId) {
            this.keys = keys;
            this.failures = failures;
            this.runId = runId;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", new CounterSerializer()));
            seen = new HashSet<>();
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            long key = value % keys;
            Counter acc = count.value();
            if (seen.add(key) && acc != null) {
                RESTORED_KEYS.get(runId).incrementAndGet();
            }
            if (acc == null) {
                acc = new Counter();
            }
            acc.n++;
            count.update(acc);
            // Fail after the state changed: a correct restore must undo this update.
            failures.maybeFail(value);
            return new Tuple2<>(key, acc.n);
        }
    }
}
