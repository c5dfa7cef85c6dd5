package io.sluice.cli.demo;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.api.tuple.Tuple2;
import io.sluice.core.serialization.Serializers;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One run of the demo's counting job, and what its functions share with the demo: the numbers keyed
 * by {@code value % keys}, a count per key in a {@link ValueState} that emits {@code (key, count)}
 * after every record and fails on purpose at the planned records (once each, after its state
 * changed, which a correct restore must undo), and a sink that keeps the last count it saw per key,
 * which is the job's final state once it finished.
 *
 * <p>The job's functions run as deserialized copies, and every restart deserializes new ones, so they
 * carry only this run's id and reach the run through a static registry: the demo's cluster runs in
 * this JVM. Thread-safe: the job's subtasks call it concurrently. Close it when the demo is done.
 */
final class CountingRun implements AutoCloseable {
    private static final Map<String, CountingRun> RUNS = new ConcurrentHashMap<>();

    private final String id = UUID.randomUUID().toString();
    private final Set<Long> failuresLeft = ConcurrentHashMap.newKeySet();
    private final AtomicInteger failuresThrown = new AtomicInteger();
    private final Map<Long, Long> lastCounts = new ConcurrentHashMap<>();

    /** A run that fails once at each of {@code failAt}. */
    CountingRun(Collection<Long> failAt) {
        failuresLeft.addAll(failAt);
        RUNS.put(id, this);
    }

    /** Adds the counting job over {@code source} to {@code env}. */
    void addJob(StreamExecutionEnvironment env, SequenceSource source, int keys) {
        env.fromSource(source, "numbers")
                .keyBy(new ModKey(keys))
                .map(new CountPerKey(id, keys)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(new LastCountPerKey(id), "results");
    }

    /** The exact count per key for the values {@code 0..records-1}. */
    static Map<Long, Long> expectedCounts(long records, int keys) {
        Map<Long, Long> expected = new TreeMap<>();
        for (long key = 0; key < Math.min(keys, records); key++) {
            long fullRounds = records / keys;
            expected.put(key, key < records % keys ? fullRounds + 1 : fullRounds);
        }
        return expected;
    }

    int failuresThrown() {
        return failuresThrown.get();
    }

    /** The last count the sink saw per key. */
    Map<Long, Long> lastCounts() {
        return new TreeMap<>(lastCounts);
    }

    @Override
    public void close() {
        RUNS.remove(id);
    }

    private static CountingRun run(String id) {
        CountingRun run = RUNS.get(id);
        if (run == null) {
            throw new IllegalStateException("The demo run " + id + " is closed; its job must not run any more");
        }
        return run;
    }

    /** {@code value % keys}. */
    record ModKey(int keys) implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long value) {
            return value % keys;
        }
    }

    /** Counts records per key; fails at the run's planned records. Called by its task's thread. */
    static final class CountPerKey implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private static final long serialVersionUID = 1L;
        private final String runId;
        private final int keys;
        private transient ValueState<Long> count;

        CountPerKey(String runId, int keys) {
            this.runId = runId;
            this.keys = keys;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            long next = count.value() == null ? 1 : count.value() + 1;
            count.update(next);
            CountingRun run = run(runId);
            if (run.failuresLeft.remove(value)) {
                run.failuresThrown.incrementAndGet();
                throw new InjectedFailure(value);
            }
            return new Tuple2<>(value % keys, next);
        }
    }

    /** Keeps the last count per key in the run. */
    record LastCountPerKey(String runId) implements SinkFunction<Tuple2<Long, Long>> {
        @Override
        public void invoke(Tuple2<Long, Long> keyAndCount) {
            run(runId).lastCounts.put(keyAndCount.f0(), keyAndCount.f1());
        }
    }

    /** The failure the demo injects on purpose. */
    static final class InjectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        InjectedFailure(long record) {
            super("Injected failure at record " + record);
        }
    }
}
