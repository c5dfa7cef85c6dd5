package io.sluice.bench.recovery;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.api.tuple.Tuple2;
import io.sluice.config.StateBackendType;
import io.sluice.core.serialization.Serializers;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.graph.JobGraph;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SplittableRandom;

/** The keyed counting job, unbounded and rate-limited, as the recovery benchmarks use it. */
final class Jobs {
    static final int KEYS = 8;
    /** Keys of {@link #paddedCountingJob}. */
    static final int PADDED_KEYS = 8_000;
    /** Bytes of the value {@link #paddedCountingJob} rewrites per record: random, incompressible. */
    static final int PADDING = 192;

    private Jobs() {}

    static JobGraph countingJob(String name, Path checkpointDir, int parallelism, double rate, Duration interval,
                                int retained) {
        StreamExecutionEnvironment env = environment(checkpointDir, parallelism, interval, retained);
        KeyedCountingJob.build(env, SequenceSource.unbounded(0).withRate(rate), KEYS, InjectedFailures.none(),
                new DiscardingSink<>());
        return env.buildJobGraph(name);
    }

    /**
     * The counting job on RocksDB with incremental checkpoints, over {@link #PADDED_KEYS} keys, each with a
     * {@link #PADDING}-byte value that every record of the key rewrites: MBs of state, in many table files
     * when the task executors' {@code state.backend.rocksdb.compaction.target-file-size} is small.
     */
    static JobGraph paddedCountingJob(String name, Path checkpointDir, int parallelism, double rate, Duration interval,
                                      int retained) {
        StreamExecutionEnvironment env = environment(checkpointDir, parallelism, interval, retained)
                .setStateBackend(StateBackendType.ROCKSDB).setIncrementalCheckpoints(true);
        env.fromSource(SequenceSource.unbounded(0).withRate(rate), "numbers")
                .keyBy(new KeyedCountingJob.ModKey(PADDED_KEYS))
                .map(new PaddedCount(PADDED_KEYS)).name("count per key")
                .returns(Serializers.tuple2(Serializers.LONG, Serializers.LONG))
                .addSink(new DiscardingSink<>(), "results");
        return env.buildJobGraph(name);
    }

    private static StreamExecutionEnvironment environment(Path checkpointDir, int parallelism, Duration interval,
                                                          int retained) {
        return StreamExecutionEnvironment.create().setParallelism(parallelism)
                .enableCheckpointing(interval)
                .setRetainedCheckpoints(retained)
                .setCheckpointDir(checkpointDir.toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(10, Duration.ofMillis(10)));
    }

    /** Counts records per key and rewrites the key's random padding value. Task thread. */
    static final class PaddedCount implements MapFunction<Long, Tuple2<Long, Long>>, RichFunction {
        private final int keys;
        private transient ValueState<Long> count;
        private transient ValueState<byte[]> padding;

        PaddedCount(int keys) {
            this.keys = keys;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            padding = context.getState(new ValueStateDescriptor<>("padding", Serializers.BYTES));
        }

        @Override
        public Tuple2<Long, Long> map(Long value) {
            Long c = count.value();
            long next = c == null ? 1 : c + 1;
            count.update(next);
            byte[] bytes = new byte[PADDING];
            new SplittableRandom(value).nextBytes(bytes);
            padding.update(bytes);
            return new Tuple2<>(value % keys, next);
        }
    }
}
