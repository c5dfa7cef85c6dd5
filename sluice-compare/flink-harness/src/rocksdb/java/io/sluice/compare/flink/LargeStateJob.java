package io.sluice.compare.flink;

import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.LargeStateWorkload;
import java.util.concurrent.locks.LockSupport;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.functions.RichMapFunction;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.PrimitiveArrayTypeInfo;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.java.functions.KeySelector;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.SavepointRestoreSettings;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The job of {@link io.sluice.compare.Scenario#LARGE_STATE} on Flink 1.20 and 2.x (only APIs both have):
 * {@code fromSequence} (the Source API; one record per {@code pollNext}, so checkpoint barriers pass
 * between records) at the plan's parallelism, a chained {@link Pace} that turns the sequence's values into
 * Sluice's ({@link SequenceInterleave}: 0, 1, 2, ... across the readers), lets the load phase through and
 * paces the steady phase, {@code keyBy(LargeStateWorkload.keyOf)}, {@link UpdateValue} (reads the key's
 * {@code byte[]} value, writes the next) and the sink2 {@code DiscardingSink}. Its configuration (state
 * backend, checkpoints, restarts) is {@link FlinkLargeState#jobConfiguration}.
 */
final class LargeStateJob {
    static final String DESCRIPTION = "fromSequence (Source API) at parallelism 2 -> chained pace map (reader j's"
            + " n-th value becomes j + 2n, as Sluice's source emits; load phase unthrottled, then changePerSecond x keys records/s; it parks per record, between which barriers pass)"
            + " -> keyBy(LargeStateWorkload.keyOf, Long) -> map reading the key's byte[] ValueState"
            + " (BYTE_PRIMITIVE_ARRAY_TYPE_INFO) and writing the next value (130 B) -> sink2 DiscardingSink";

    private LargeStateJob() {}

    static JobGraph build(LargeStatePlan plan, int keyedParallelism, Configuration configuration, String restoreFrom) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(configuration);
        env.setParallelism(keyedParallelism);
        env.setMaxParallelism(plan.maxParallelism());
        env.fromSequence(0, Long.MAX_VALUE).name("numbers").setParallelism(plan.parallelism())
                .map(new Pace(SequenceInterleave.of(plan.parallelism()), plan.keys(),
                        plan.steadyRate() / plan.parallelism())).name("pace").returns(Types.LONG)
                .setParallelism(plan.parallelism())
                .keyBy(new UpdatedKey(plan.keys()))
                .map(new UpdateValue(plan.keys(), plan.valueBytes())).name("update value").returns(Types.LONG)
                .sinkTo(new DiscardingSink<>()).name("discard");
        JobGraph graph = env.getStreamGraph().getJobGraph();
        if (restoreFrom != null) {
            graph.setSavepointRestoreSettings(SavepointRestoreSettings.forPath(restoreFrom));
        }
        return graph;
    }

    /** The key a record updates. */
    static final class UpdatedKey implements KeySelector<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final long keys;

        UpdatedKey(long keys) {
            this.keys = keys;
        }

        @Override
        public Long getKey(Long value) {
            return LargeStateWorkload.keyOf(value, keys);
        }
    }

    /**
     * Turns the sequence's values into Sluice's ({@link SequenceInterleave}), passes the load phase's records
     * at once and the later ones at {@code perSubtask} records/s, parking until each is due (pacing is the
     * workload, as in Sluice's job). Task thread only.
     */
    static final class Pace implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final SequenceInterleave interleave;
        private final long keys;
        private final double perSubtask;
        private transient long start = -1;
        private transient long passed;
        private transient boolean started;

        Pace(SequenceInterleave interleave, long keys, double perSubtask) {
            this.interleave = interleave;
            this.keys = keys;
            this.perSubtask = perSubtask;
        }

        @Override
        public Long map(Long sequenceValue) {
            long value = interleave.apply(sequenceValue);
            if (LargeStateWorkload.loading(value, keys)) {
                return value;
            }
            long now = System.nanoTime();
            if (!started) {
                started = true;
                start = now;
            }
            long due = start + (long) (passed * 1e9 / perSubtask);
            if (due > now) {
                LockSupport.parkNanos(due - now);
            }
            passed++;
            return value;
        }
    }

    /**
     * Reads the key's value and writes the next; reports processed records, restored state (the first record
     * of an instance of the current {@link Recorder#epoch()} whose key had a value) and throws the injected
     * failure. The state handle is taken on the first record (open's signature differs between 1.x and 2.x).
     */
    static final class UpdateValue extends RichMapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final long keys;
        private final int valueBytes;
        private transient ValueState<byte[]> value;
        private transient long epoch;
        private transient boolean seenRestored;

        UpdateValue(long keys, int valueBytes) {
            this.keys = keys;
            this.valueBytes = valueBytes;
        }

        @Override
        public Long map(Long record) throws Exception {
            if (value == null) {
                value = getRuntimeContext().getState(new ValueStateDescriptor<>("value",
                        PrimitiveArrayTypeInfo.BYTE_PRIMITIVE_ARRAY_TYPE_INFO));
                epoch = Recorder.epoch();
            }
            long key = LargeStateWorkload.keyOf(record, keys);
            byte[] previous = value.value();
            byte[] next = LargeStateWorkload.next(key, previous, valueBytes);
            value.update(next);
            Recorder.processed(1);
            if (!seenRestored && previous != null) {
                seenRestored = true;
                Recorder.restored(epoch);
            }
            if (Recorder.shouldFail()) {
                Recorder.failed();
                throw new IllegalStateException("Injected failure (harness, large-state), at record " + record);
            }
            return LargeStateWorkload.version(next);
        }
    }
}
