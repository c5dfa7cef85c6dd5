package io.sluice.taskexecutor;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.operators.RecordTimestamp;
import io.sluice.util.ManualClock;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The wiring of a chain and how its operators hear of checkpoints: opened tail first, each knowing
 * the checkpoint the task restores from; records, checkpoint calls, finish and close reach every
 * operator head first.
 */
class OperatorChainTest {
    private final List<String> journal = new CopyOnWriteArrayList<>();
    private final RecordingOperator head = new RecordingOperator("Map", journal);
    private final RecordingOperator tail = new RecordingOperator("Sink", journal);
    private final String thread = Thread.currentThread().getName();
    private final OperatorChain chain = OperatorChain.wire(new TaskInfo("Map (1/1)", 0, 1, 128, 2),
            List.of(head, tail), new TaskOutputs(List.of(), List.of(), Map.of()), new ManualClock());

    @Test
    void operatorsOpenTailFirstAndLearnTheRestoredCheckpoint() throws Exception {
        chain.open(null, new RecordTimestamp(), OptionalLong.of(42));

        assertThat(head.restoredCheckpointId()).hasValue(42);
        assertThat(tail.restoredCheckpointId()).hasValue(42);
        assertThat(journal).containsExactly("Sink: open", "Map: open");
    }

    @Test
    void aFreshStartRestoresNoCheckpoint() throws Exception {
        chain.open(null, new RecordTimestamp(), OptionalLong.empty());

        assertThat(head.restoredCheckpointId()).isEmpty();
    }

    @Test
    void checkpointCallsAndFinishGoHeadFirst() throws Exception {
        chain.open(null, new RecordTimestamp(), OptionalLong.empty());

        chain.prepareSnapshot(1);
        chain.notifyCheckpointComplete(1);
        chain.notifyCheckpointAborted(2);
        chain.finish();
        chain.closeQuietly();

        assertThat(journal).containsExactly("Sink: open", "Map: open", "Map: prepareSnapshot 1", "Sink: prepareSnapshot 1",
                "Map: complete 1", "Sink: complete 1", "Map: aborted 2", "Sink: aborted 2", "Map: finish", "Sink: finish",
                "Map: close", "Sink: close");
        for (RecordingOperator op : List.of(head, tail)) {
            assertThat(op.calls()).containsExactly("open on " + thread, "prepareSnapshot 1 on " + thread,
                    "complete 1 on " + thread, "aborted 2 on " + thread, "finish on " + thread, "close on " + thread);
        }
    }

    @Test
    void recordsAndWatermarksPushedIntoTheHeadPassEveryOperatorInChainOrder() throws Exception {
        chain.open(null, new RecordTimestamp(), OptionalLong.empty());

        chain.head().collect("x");
        chain.head().emitWatermark(5);

        assertThat(journal).containsExactly("Sink: open", "Map: open", "Map: element x", "Sink: element x",
                "Map: watermark 5", "Sink: watermark 5");
        assertThat(chain.outputs().recordsWritten()).as("no output edges").isZero();
    }

    @Test
    void anIdleTaskSleepsUntilItsOperatorsNextProcessingTimeWorkAndNoLongerThanTheSafetyNet() throws Exception {
        ManualClock clock = new ManualClock();
        io.sluice.operators.TimestampsAndWatermarksOperator<Object> watermarks =
                new io.sluice.operators.TimestampsAndWatermarksOperator<>(io.sluice.api.eventtime.WatermarkStrategy
                        .forMonotonousTimestamps().withEmitInterval(java.time.Duration.ofMillis(200))
                        .withIdleness(java.time.Duration.ofMillis(500)), "Watermarks");
        OperatorChain timed = OperatorChain.wire(new TaskInfo("Source (1/1)", 0, 1, 128, 1),
                List.of(watermarks, tail), new TaskOutputs(List.of(), List.of(), Map.of()), clock);
        timed.open(null, new RecordTimestamp(), OptionalLong.empty());

        assertThat(timed.nanosUntilProcessingTimeWork()).as("the first watermark is due at once").isZero();
        timed.advanceProcessingTime();
        assertThat(timed.nanosUntilProcessingTimeWork()).as("the next watermark").isEqualTo(200_000_000L);
        clock.advance(java.time.Duration.ofMillis(450));
        timed.advanceProcessingTime();
        assertThat(timed.nanosUntilProcessingTimeWork()).as("turning idle comes before the next watermark")
                .isEqualTo(50_000_000L);
        clock.advance(java.time.Duration.ofMillis(50));
        timed.advanceProcessingTime();
        assertThat(timed.nanosUntilProcessingTimeWork()).as("idle: only a record wakes it; the safety net remains")
                .isEqualTo(OperatorChain.MAX_IDLE_WAIT_NANOS);

        assertThat(chain.nanosUntilProcessingTimeWork()).as("operators without processing time")
                .isEqualTo(OperatorChain.MAX_IDLE_WAIT_NANOS);
    }

    @Test
    void anOperatorThatUsesProcessingTimeButDoesNotSayWhenIsAskedAsOftenAsBefore() throws Exception {
        RecordingOperator untold = new RecordingOperator("Custom", journal);
        io.sluice.operators.StreamOperator<Object> ticking = new io.sluice.operators.StreamOperator<>() {
            @Override
            public String name() {
                return "Ticking";
            }

            @Override
            public void open(io.sluice.operators.OperatorContext context) {}

            @Override
            public void processElement(Object value) {}

            @Override
            public void processWatermark(long watermark) {}

            @Override
            public void processIdleStatus(boolean idle) {}

            @Override
            public void advanceProcessingTime(long nowMillis) {
                journal.add("tick " + nowMillis);
            }
        };
        OperatorChain legacy = OperatorChain.wire(new TaskInfo("Custom (1/1)", 0, 1, 128, 1), List.of(untold, ticking),
                new TaskOutputs(List.of(), List.of(), Map.of()), new ManualClock());

        assertThat(legacy.nanosUntilProcessingTimeWork())
                .isEqualTo(OperatorChain.UNTOLD_OPERATOR_PERIOD_MILLIS * 1_000_000L);
    }
}
