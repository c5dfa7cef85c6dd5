package io.sluice.compare.flink;

import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The keyed counting job on Flink 2.x (the 1.x version of this class is in
 * {@code flink-harness/src/flink1}; SourceFunction, {@code addSink} and the environment's
 * state-backend, checkpoint-storage and restart-strategy setters are gone in 2.x): Flink's own
 * sequence source ({@code fromSequence}, the Source API: one split per subtask whose position is
 * checkpointed), in the recovery scenarios paced to the plan's rate by a chained {@link Pace}, then
 * {@code keyBy(v % keys)} ({@link ModKey}), {@link CountPerKey}, and the Source-API
 * {@code DiscardingSink} chained to it ({@code sinkTo}). Parallelism 2, heap state backend,
 * fixed-delay restart with no delay, object reuse, all set as typed configuration options.
 */
public final class CountingJob {
    private CountingJob() {}

    /** What the job is, for the result file's header. */
    static final String DESCRIPTION = "fromSequence Source-API source (in the recovery scenarios paced by a chained"
            + " map), keyBy(v % keys), map counting per key in ValueState<Long> emitting the count, chained sink2"
            + " DiscardingSink (sinkTo); parallelism 2; state.backend.type=hashmap; restart-strategy fixed-delay 0 ms;"
            + " tolerable checkpoint failures unlimited; pipeline.object-reuse=true";

    /**
     * @param keys               distinct keys
     * @param rate               records/s over all subtasks; 0 for as fast as possible (the throughput job)
     * @param checkpointInterval ms between checkpoints
     * @param checkpointDir      where checkpoint data goes (a {@code slowfs:///} or {@code file:///} URI)
     */
    public static JobGraph build(int keys, double rate, long checkpointInterval, String checkpointDir) {
        return build(keys, rate, checkpointInterval, checkpointDir, 0, null);
    }

    /**
     * The job as {@link #build(int, double, long, String)}; with {@code records > 0} (and no rate)
     * bounded to the records {@code 0 .. records - 1}, and with a {@code checkSinkId} its sink counts
     * into those {@link CheckCounters} instead of discarding (the bounded check run).
     */
    public static JobGraph build(int keys, double rate, long checkpointInterval, String checkpointDir, long records,
                                 String checkSinkId) {
        Configuration c = new Configuration();
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(checkpointInterval));
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
        c.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, Integer.MAX_VALUE);
        c.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        // No defensive copy of every record between the chained map and sink: the functions keep no
        // reference to a record they passed on, which is what object reuse requires.
        c.set(PipelineOptions.OBJECT_REUSE, true);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        env.setParallelism(2);
        DataStream<Long> numbers = env.fromSequence(0, records > 0 ? records - 1 : Long.MAX_VALUE).name("numbers");
        DataStream<Long> paced = rate > 0 ? numbers.map(new Pace(rate / 2)).name("pace").returns(Types.LONG) : numbers;
        DataStream<Long> counts = paced.keyBy(new ModKey(keys))
                .map(new CountPerKey(rate > 0)).name("count per key").returns(Types.LONG);
        if (checkSinkId == null) {
            counts.sinkTo(new DiscardingSink<>()).name("results");
        } else {
            counts.sinkTo(new CheckSink(checkSinkId)).name("results");
        }
        return env.getStreamGraph().getJobGraph();
    }
}
