package io.sluice.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.eventtime.WatermarkStrategy;
import io.sluice.api.functions.ReduceFunction;
import io.sluice.api.sink.DiscardingSink;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.api.errors.InvalidJobException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The event-time mistakes users make, reported when the graph is built, naming the operator and the fix. */
class EventTimeGraphErrorsTest {
    private static final ReduceFunction<Long> SUM = Long::sum;

    private static DataStream<Long> numbers(StreamExecutionEnvironment env) {
        return env.fromSequence(0, 100);
    }

    private static DataStream<Long> timestamped(StreamExecutionEnvironment env) {
        return numbers(env).assignTimestampsAndWatermarks(
                WatermarkStrategy.<Long>forMonotonousTimestamps().withTimestampAssigner((v, p) -> v));
    }

    @Test
    void eventTimeWindowsOnAStreamWithoutTimestamps() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        numbers(env).keyBy(v -> v % 2).window(WindowAssigner.tumblingEventTime(Duration.ofSeconds(1))).reduce(SUM)
                .name("sums").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("no timestamps")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sums'").hasMessageContaining("no timestamps")
                .hasMessageContaining("WatermarkStrategy").hasMessageContaining("processing-time windows");
    }

    @Test
    void processingTimeWindowsNeedNoTimestamps() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        numbers(env).keyBy(v -> v % 2).window(WindowAssigner.tumblingProcessingTime(Duration.ofSeconds(1))).reduce(SUM)
                .addSink(new DiscardingSink<>());
        env.buildJobGraph("processing time");
    }

    @Test
    void aNegativeOutOfOrderness() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        numbers(env).assignTimestampsAndWatermarks(WatermarkStrategy.<Long>forBoundedOutOfOrderness(Duration.ofMillis(-5))
                        .withTimestampAssigner((v, p) -> v)).name("stamp clicks")
                .addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("negative")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'stamp clicks'").hasMessageContaining("negative")
                .hasMessageContaining("forMonotonousTimestamps()");
    }

    @Test
    void aWindowSizeOfZero() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        timestamped(env).keyBy(v -> v % 2).window(WindowAssigner.tumblingEventTime(Duration.ZERO)).reduce(SUM)
                .name("zero").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("zero size")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'zero'").hasMessageContaining("window size is 0 ms")
                .hasMessageContaining("must be positive");
    }

    @Test
    void aSessionGapOfZero() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        timestamped(env).keyBy(v -> v % 2).window(WindowAssigner.sessionEventTime(Duration.ZERO)).reduce(SUM)
                .name("sessions").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("zero gap")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sessions'").hasMessageContaining("session gap is 0 ms");
    }

    @Test
    void aSlideLargerThanTheSize() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.create();
        timestamped(env).keyBy(v -> v % 2)
                .window(WindowAssigner.slidingEventTime(Duration.ofSeconds(1), Duration.ofSeconds(2))).reduce(SUM)
                .name("sliding").addSink(new DiscardingSink<>());
        assertThatThrownBy(() -> env.buildJobGraph("slide")).isInstanceOf(InvalidJobException.class)
                .hasMessageContaining("'sliding'").hasMessageContaining("slide (2000 ms) is larger than the window size"
                        + " (1000 ms)").hasMessageContaining("at most the size");
    }
}
