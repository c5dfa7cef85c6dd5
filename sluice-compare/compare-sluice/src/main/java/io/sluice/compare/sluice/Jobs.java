package io.sluice.compare.sluice;

import io.sluice.api.StreamExecutionEnvironment;
import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.functions.SinkFunction;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.source.SequenceSource;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.compare.Plan;
import io.sluice.config.RestartStrategyConfig;
import io.sluice.core.serialization.Serializers;
import io.sluice.examples.InjectedFailures;
import io.sluice.examples.KeyedCountingJob;
import io.sluice.examples.RunningCount;
import io.sluice.graph.JobGraph;
import io.sluice.graph.JobVertex;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The keyed counting job of every scenario: {@code SequenceSource} at parallelism 2,
 * {@code keyBy(v % keys)}, a map counting records per key in a {@code ValueState<Long>} and emitting
 * the new count, and a discarding sink (chained to the map). The recovery scenarios use a
 * rate-limited source and a counting function that reports to a {@link KeyedProbe}; throughput and
 * checkpoint duration use an unlimited source and the plain counting function.
 *
 * <p>Threading: the builders are stateless and may be called from any thread; the functions run on
 * their tasks' threads, one instance per subtask and attempt.
 */
final class Jobs {
    static final int PARALLELISM = 2;
    /** Restart attempts of the recovery job: far more than any scenario injects. */
    static final int RESTART_ATTEMPTS = 1_000_000;

    private Jobs() {}

    /**
     * The recovery scenarios' job: {@code plan.recoveryRate()} records/s in total, {@code plan.keys()}
     * keys, checkpoints every {@code plan.recoveryCheckpointInterval()} keeping {@code retained},
     * fixed-delay restart with no delay.
     */
    static JobGraph recoveryJob(Plan plan, int retained, Path checkpointDir, KeyedProbe probe, String name) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(PARALLELISM)
                .enableCheckpointing(plan.recoveryCheckpointInterval())
                .setRetainedCheckpoints(retained)
                .setCheckpointDir(checkpointDir.toString())
                .setRestartStrategy(new RestartStrategyConfig.FixedDelay(RESTART_ATTEMPTS, Duration.ZERO));
        env.fromSource(SequenceSource.unbounded(0).withRate(plan.recoveryRate()), "numbers")
                .keyBy(new KeyedCountingJob.ModKey(plan.keys()))
                .map(new ProbedCountPerKey(probe.id())).name("count per key")
                .returns(Serializers.LONG)
                .addSink(new DiscardingSink<>(), "discard");
        return env.buildJobGraph(name);
    }

    /** The throughput and checkpoint-duration job: unlimited source, {@code keys} keys, checkpoints every {@code interval}. */
    static JobGraph unlimitedJob(int keys, Duration interval, Path checkpointDir, String name) {
        return countingJob(SequenceSource.unbounded(0), keys, interval, checkpointDir, new DiscardingSink<>(), name);
    }

    /**
     * The plain keyed counting job from {@code source} into {@code sink}, {@code keys} keys,
     * checkpoints every {@code interval}.
     */
    static JobGraph countingJob(SequenceSource source, int keys, Duration interval, Path checkpointDir,
                                SinkFunction<Long> sink, String name) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create().setParallelism(PARALLELISM)
                .enableCheckpointing(interval)
                .setCheckpointDir(checkpointDir.toString());
        env.fromSource(source, "numbers")
                .keyBy(new KeyedCountingJob.ModKey(keys))
                .map(new RunningCount()).name("count per key")
                .returns(Serializers.LONG)
                .addSink(sink, "results");
        return env.buildJobGraph(name);
    }

    /** The id of the vertex holding the keyed state (the counting map and its chained sink). */
    static int keyedVertex(JobGraph graph) {
        return graph.vertices().stream().filter(JobVertex::hasKeyedState).mapToInt(JobVertex::id).findFirst()
                .orElseThrow(() -> new IllegalStateException("Job " + graph.name() + " has no keyed vertex"));
    }

    /**
     * {@link CountPerKey} that reports its instance's first record to its {@link KeyedProbe} and
     * throws when the probe says so (after updating its state, so a correct restore must undo the
     * update). Per record it adds one volatile read.
     */
    static final class ProbedCountPerKey implements MapFunction<Long, Long>, RichFunction {
        private static final long serialVersionUID = 1L;
        private final String probeId;
        private transient ValueState<Long> count;
        private transient KeyedProbe probe;
        private transient int subtask;
        private transient int attempt;
        private transient boolean seenFirst;

        ProbedCountPerKey(String probeId) {
            this.probeId = probeId;
        }

        @Override
        public void open(RuntimeContext context) {
            count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
            probe = KeyedProbe.lookup(probeId);
            subtask = context.subtaskIndex();
            attempt = context.attemptNumber();
        }

        @Override
        public Long map(Long value) {
            Long c = count.value();
            if (!seenFirst) {
                seenFirst = true;
                if (probe != null) {
                    probe.firstRecord(new KeyedProbe.FirstRecord(System.nanoTime(), subtask, attempt, c != null));
                }
            }
            Long next = c == null ? 1L : c + 1;
            count.update(next);
            if (probe != null && probe.shouldFail(subtask)) {
                probe.thrown(System.nanoTime());
                throw new InjectedFailures.InjectedFailureException("Injected failure in keyed subtask " + subtask
                        + " at record " + value + " (comparison harness)");
            }
            return next;
        }
    }
}
