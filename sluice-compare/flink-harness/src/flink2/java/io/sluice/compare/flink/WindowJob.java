package io.sluice.compare.flink;

import io.sluice.compare.WindowWorkload;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.PipelineOptions;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.configuration.StateBackendOptions;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;

/**
 * The window job of the window scenarios on Flink 2.x (the 1.x version is in
 * {@code flink-harness/src/flink1}): {@code fromSource(NumberSequenceSource)} with the workload's
 * timestamps and bounded out-of-orderness assigned in the source (per-split watermarks every 200 ms),
 * {@link WindowFunctions.Interleave} chained to it, {@code keyBy(workload.key)}, a 1 s tumbling or a
 * 5 s-gap session event-time window with {@code aggregate} ({@link WindowFunctions.SumOfValues}), and a
 * discarding sink (or, in the bounded check run, one counting the results). Parallelism 2,
 * {@code state.backend.type=hashmap}, object reuse, fixed-delay restart with no delay.
 */
public final class WindowJob {
    private WindowJob() {}

    /** What the job is, for the result file's header. */
    static final String DESCRIPTION = "window scenarios: fromSource(NumberSequenceSource) with timestamps and"
            + " bounded out-of-orderness assigned in the source (per-split watermarks,"
            + " pipeline.auto-watermark-interval 200 ms), a chained map to the interleaved sequence, keyBy(workload"
            + " key), TumblingEventTimeWindows 1 s or EventTimeSessionWindows 5 s gap, aggregate, sink2"
            + " DiscardingSink; state.backend.type=hashmap; pipeline.object-reuse=true";

    /**
     * @param records     records of a bounded run (its end of input fires every window); 0 for an unbounded one
     * @param checkSinkId the {@link CheckCounters} id the sink counts into; null for a
     *                    discarding sink
     */
    public static JobGraph build(WindowWorkload workload, long records, long checkpointInterval,
                                 Duration outOfOrderness, String checkpointDir, String checkSinkId) {
        Configuration c = new Configuration();
        c.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, Duration.ofMillis(checkpointInterval));
        c.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, checkpointDir);
        c.set(CheckpointingOptions.TOLERABLE_FAILURE_NUMBER, Integer.MAX_VALUE);
        c.set(StateBackendOptions.STATE_BACKEND, "hashmap");
        c.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, Integer.MAX_VALUE);
        c.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ZERO);
        c.set(PipelineOptions.OBJECT_REUSE, true);
        c.set(PipelineOptions.AUTO_WATERMARK_INTERVAL, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(c);
        env.setParallelism(2);
        long perSplit = records > 0 ? records / 2 : 1L << 61;
        WatermarkStrategy<Long> watermarks = WatermarkStrategy.<Long>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new WindowFunctions.EventTime(workload, perSplit));
        DataStream<Long> events = env.fromSource(new NumberSequenceSource(0, 2 * perSplit - 1), watermarks, "numbers")
                .map(new WindowFunctions.Interleave(perSplit)).name("interleave").returns(Types.LONG);
        Duration size = Duration.ofMillis(workload.windowMillis());
        DataStream<Long> results = events.keyBy(new WindowFunctions.EventKey(workload), Types.LONG)
                .window(workload == WindowWorkload.TUMBLING ? TumblingEventTimeWindows.of(size)
                        : EventTimeSessionWindows.withGap(size))
                .aggregate(new WindowFunctions.SumOfValues(workload), Types.LONG, Types.LONG).name("window");
        if (checkSinkId == null) {
            results.sinkTo(new DiscardingSink<>()).name("results");
        } else {
            results.sinkTo(new CheckSink(checkSinkId)).name("results");
        }
        return env.getStreamGraph().getJobGraph();
    }
}
