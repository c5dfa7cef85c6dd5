package io.sluice.compare.flink;

import io.sluice.compare.WindowWorkload;
import java.time.Duration;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.restartstrategy.RestartStrategies;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.state.hashmap.HashMapStateBackend;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.DiscardingSink;
import org.apache.flink.streaming.api.windowing.assigners.EventTimeSessionWindows;
import org.apache.flink.streaming.api.windowing.assigners.TumblingEventTimeWindows;
import org.apache.flink.streaming.api.windowing.time.Time;

/**
 * The window job of the window scenarios on Flink 1.x (the 2.x version is in
 * {@code flink-harness/src/flink2}): {@code fromSource(NumberSequenceSource)} with the workload's
 * timestamps and bounded out-of-orderness assigned in the source (per-split watermarks every 200 ms),
 * {@link WindowFunctions.Interleave} chained to it, {@code keyBy(workload.key)}, a 1 s tumbling or a
 * 5 s-gap session event-time window with {@code aggregate} ({@link WindowFunctions.SumOfValues}), and a
 * discarding sink (or, in the bounded check run, one counting the results). Parallelism 2,
 * HashMapStateBackend, object reuse, fixed-delay restart with no delay.
 */
public final class WindowJob {
    private WindowJob() {}

    /** What the job is, for the result file's header. */
    static final String DESCRIPTION = "window scenarios: fromSource(NumberSequenceSource) with timestamps and"
            + " bounded out-of-orderness assigned in the source (per-split watermarks, auto-watermark-interval"
            + " 200 ms), a chained map to the interleaved sequence, keyBy(workload key), TumblingEventTimeWindows"
            + " 1 s or EventTimeSessionWindows 5 s gap, aggregate, DiscardingSink; HashMapStateBackend; object reuse";

    /**
     * @param records            records of a bounded run (its end of input fires every window); 0 for an
     *                           unbounded one
     * @param checkSinkId        the {@link CheckCounters} id the sink counts into; null for a
     *                           discarding sink
     */
    public static JobGraph build(WindowWorkload workload, long records, long checkpointInterval,
                                 Duration outOfOrderness, String checkpointDir, String checkSinkId) {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(new Configuration());
        env.setParallelism(2);
        env.enableCheckpointing(checkpointInterval);
        env.getCheckpointConfig().setCheckpointStorage(checkpointDir);
        env.getCheckpointConfig().setTolerableCheckpointFailureNumber(Integer.MAX_VALUE);
        env.setStateBackend(new HashMapStateBackend());
        env.setRestartStrategy(RestartStrategies.fixedDelayRestart(Integer.MAX_VALUE, 0));
        env.getConfig().enableObjectReuse();
        env.getConfig().setAutoWatermarkInterval(200);
        long perSplit = records > 0 ? records / 2 : 1L << 61;
        WatermarkStrategy<Long> watermarks = WatermarkStrategy.<Long>forBoundedOutOfOrderness(outOfOrderness)
                .withTimestampAssigner(new WindowFunctions.EventTime(workload, perSplit));
        DataStream<Long> events = env.fromSource(new NumberSequenceSource(0, 2 * perSplit - 1), watermarks, "numbers")
                .map(new WindowFunctions.Interleave(perSplit)).name("interleave").returns(Types.LONG);
        Time size = Time.milliseconds(workload.windowMillis());
        DataStream<Long> results = events.keyBy(new WindowFunctions.EventKey(workload), Types.LONG)
                .window(workload == WindowWorkload.TUMBLING ? TumblingEventTimeWindows.of(size)
                        : EventTimeSessionWindows.withGap(size))
                .aggregate(new WindowFunctions.SumOfValues(workload), Types.LONG, Types.LONG).name("window");
        results.addSink(checkSinkId == null ? new DiscardingSink<>() : new CheckSink(checkSinkId)).name("results");
        return env.getStreamGraph().getJobGraph();
    }
}
