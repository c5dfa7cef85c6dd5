package io.sluice.compare.sluice;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.compare.LargeStatePlan;
import io.sluice.compare.LargeStateWorkload;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.graph.JobGraph;
import java.time.Duration;

/**
 * The job of {@link io.sluice.compare.Scenario#LARGE_STATE} on Sluice: {@link LargeStateSource} at the plan's
 * parallelism (the load phase unthrottled, the steady phase paced), {@code keyBy(LargeStateWorkload.keyOf)}, a map that reads the key's {@code byte[]} value and
 * writes the next one ({@link LargeStateWorkload#next}), and a discarding sink. RocksDB state backend with
 * incremental checkpoints, every {@code plan.checkpointInterval()} to local disk, fixed-delay restart
 * without delay, max parallelism {@code plan.maxParallelism()}.
 *
 * <p>Threading: the builder is stateless; the functions run on their tasks' threads.
 */
final class LargeStateJob {
    static final String DESCRIPTION = "LargeStateSource at parallelism 2 (0, 1, 2, ...: the load phase"
            + " unthrottled, then changePerSecond x keys records/s, paced without blocking) -> keyBy(LargeStateWorkload.keyOf, Long) -> map reading the"
            + " key's byte[] ValueState and writing the next value (130 B) -> DiscardingSink; setStateBackend(ROCKSDB),"
            + " setIncrementalCheckpoints(true), max parallelism 128, checkpoint timeout 10 min, restart fixed-delay"
            + " 0 ms, task-local recovery on (RocksDB's table files hard-linked next to its local directory)";

    private LargeStateJob() {}

    static JobGraph build(LargeStatePlan plan, int keyedParallelism, String checkpointDir, KeyedProbe probe) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create()
                .setParallelism(keyedParallelism)
                .setMaxParallelism(plan.maxParallelism())
                .setStateBackend(StateBackendType.ROCKSDB)
                .setIncrementalCheckpoints(true)
                .setLocalRecovery(true)
                .enableCheckpointing(plan.checkpointInterval())
                .setCheckpointTimeout(Duration.ofMinutes(10))
                .setCheckpointDir(checkpointDir)
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(Jobs.RESTART_ATTEMPTS, Duration.ZERO));
        env.fromSource(new LargeStateSource(plan.keys(), plan.steadyRate() / plan.parallelism()), "numbers")
                .setParallelism(plan.parallelism())
                .keyBy(new UpdatedKey(plan.keys()), Serializers.LONG)
                .map(new UpdateValue(probe.id(), plan.keys(), plan.valueBytes())).name("update value")
                .returns(Serializers.LONG)
                .addSink(new DiscardingSink<>(), "discard");
        return env.buildJobGraph("large state " + plan.variant());
    }

    /** The key a record updates: {@link LargeStateWorkload#keyOf}. */
    record UpdatedKey(long keys) implements KeySelector<Long, Long> {
        @Override
        public Long getKey(Long value) {
            return LargeStateWorkload.keyOf(value, keys);
        }
    }

    /**
     * Reads the key's value and writes the next; reports its first record (restored or not) and processed
     * records (a LongAdder per record, as the Flink job's) to the {@link KeyedProbe}, and throws when the probe says so.
     */
    static final class UpdateValue implements MapFunction<Long, Long>, RichFunction {
        private static final long serialVersionUID = 1L;
        private final String probeId;
        private final long keys;
        private final int valueBytes;
        private transient ValueState<byte[]> value;
        private transient KeyedProbe probe;
        private transient int subtask;
        private transient int attempt;
        private transient boolean seenFirst;

        UpdateValue(String probeId, long keys, int valueBytes) {
            this.probeId = probeId;
            this.keys = keys;
            this.valueBytes = valueBytes;
        }

        @Override
        public void open(RuntimeContext context) {
            value = context.getState(new ValueStateDescriptor<>("value", Serializers.BYTES));
            probe = KeyedProbe.lookup(probeId);
            subtask = context.subtaskIndex();
            attempt = context.attemptNumber();
        }

        @Override
        public Long map(Long record) {
            long key = LargeStateWorkload.keyOf(record, keys);
            byte[] previous = value.value();
            byte[] next = LargeStateWorkload.next(key, previous, valueBytes);
            value.update(next);
            if (probe != null) {
                if (!seenFirst) {
                    seenFirst = true;
                    probe.firstRecord(new KeyedProbe.FirstRecord(System.nanoTime(), subtask, attempt, previous != null));
                }
                probe.processed(1);
                if (probe.shouldFail(subtask)) {
                    probe.thrown(System.nanoTime());
                    throw new InjectedFailures.InjectedFailureException("Injected failure in keyed subtask " + subtask
                            + " at record " + record + " (comparison harness, large-state)");
                }
            }
            return LargeStateWorkload.version(next);
        }
    }
}
