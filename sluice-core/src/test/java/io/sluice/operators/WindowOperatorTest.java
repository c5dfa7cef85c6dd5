package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.OutputTag;
import io.sluice.api.functions.AggregateFunction;
import io.sluice.api.functions.Collector;
import io.sluice.api.functions.ProcessWindowFunction;
import io.sluice.api.windowing.WindowAssigner;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.operators.windowing.WindowContents;
import io.sluice.operators.windowing.WindowOperator;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyGroupRange;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Window operators on a manual clock: firing, sliding, session merging, lateness, late data, restore. */
class WindowOperatorTest {
    /**
     * The backend the operator runs on: the heap here; the RocksDB module's subclass runs every test on
     * RocksDB. Called from a field initializer: must not use the subclass's fields.
     */
    KeyedStateBackend newBackend(KeyGroupRange range, int maxParallelism) {
        return new HeapKeyedStateBackend(range, maxParallelism);
    }

    @AfterEach
    void closeBackend() {
        backend.close();
    }

    private static final int MAX_PARALLELISM = 8;
    private KeyedStateBackend backend = newBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
    private OperatorHarness<String> h;

    /** Records are "key:value"; sums the values. */
    static final class SumValues implements AggregateFunction<String, Long, Long> {
        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(String value, Long acc) {
            return acc + Long.parseLong(value.split(":")[1]);
        }

        @Override
        public Long getResult(Long acc) {
            return acc;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }

    /** Emits "key [start,end) values". */
    static final class Describe extends ProcessWindowFunction<String, String, String> {
        @Override
        public void process(String key, Context context, Iterable<String> elements, Collector<String> out) {
            StringBuilder b = new StringBuilder();
            List<String> values = new java.util.ArrayList<>();
            for (String e : elements) {
                values.add(e.split(":")[1]);
            }
            values.sort(null); // merged sessions hold their records in no particular order
            for (String v : values) {
                b.append(v).append(',');
            }
            out.collect(key + " [" + context.window().start() + "," + context.window().end() + ") " + b);
        }
    }

    private void open(WindowAssigner assigner, long lateness, OutputTag<String> lateTag,
                      WindowContents<String, String, ?, ?> contents) throws Exception {
        @SuppressWarnings({"unchecked", "rawtypes"})
        WindowOperator<String, String, ?, ?> op = new WindowOperator(assigner, lateness, lateTag, contents, "Window");
        this.op = op;
        h = new OperatorHarness<>(op, backend);
    }

    private WindowOperator<String, String, ?, ?> op;

    private void send(String record, long ts) throws Exception {
        backend.setCurrentKey(record.split(":")[0]);
        h.element(record, ts);
    }

    @Test
    void tumblingEventTimeWindowsFireWhenTheWatermarkPassesTheirEnd() throws Exception {
        open(WindowAssigner.tumblingEventTime(Duration.ofMillis(10)), 0, null, WindowContents.aggregating(new SumValues()));
        send("a:1", 0);
        send("a:2", 9);
        send("b:5", 3);
        send("a:4", 10);
        h.watermark(8);
        assertThat(h.take()).containsExactly("wm 8");
        h.watermark(9);
        assertThat(h.take()).containsExactly("3@9", "5@9", "wm 9");
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("4@19", "wm MAX");
    }

    @Test
    void slidingWindowsHoldEachRecordInSizeOverSlideWindows() throws Exception {
        open(WindowAssigner.slidingEventTime(Duration.ofMillis(10), Duration.ofMillis(5)), 0, null,
                WindowContents.processing(new Describe()));
        send("a:1", 7);
        send("a:2", 12);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("a [0,10) 1,@9", "a [5,15) 1,2,@14", "a [10,20) 2,@19", "wm MAX");
    }

    @Test
    void sessionWindowsMergeWhenAGapIsBridged() throws Exception {
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 0, null, WindowContents.processing(new Describe()));
        send("a:1", 0);
        send("a:2", 30);
        send("a:3", 15); // [15,25) touches neither [0,10) nor [30,40)
        send("a:4", 8);  // [8,18) joins [0,10) and [15,25) into [0,25)
        send("b:9", 100);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("a [0,25) 1,3,4,@24", "a [30,40) 2,@39", "b [100,110) 9,@109", "wm MAX");
    }

    @Test
    void lateRecordsWithinTheLatenessUpdateAndReEmitLaterOnesGoToTheSideOutput() throws Exception {
        OutputTag<String> late = OutputTag.of("late");
        open(WindowAssigner.tumblingEventTime(Duration.ofMillis(10)), 5, late, WindowContents.aggregating(new SumValues()));
        send("a:1", 2);
        h.watermark(10);
        assertThat(h.take()).containsExactly("1@9", "wm 10");
        send("a:2", 3); // late by 1 ms of event time, within the lateness of 5
        assertThat(h.take()).containsExactly("3@9");
        h.watermark(14);
        send("a:4", 4); // the window is purged at 9 + 5 = 14
        assertThat(h.take()).containsExactly("wm 14", "late: a:4@4");
        assertThat(op.lateRecordsDropped()).isZero();
    }

    @Test
    void recordsLaterThanTheLatenessWithoutSideOutputAreDroppedAndCounted() throws Exception {
        open(WindowAssigner.tumblingEventTime(Duration.ofMillis(10)), 0, null, WindowContents.aggregating(new SumValues()));
        send("a:1", 2);
        h.watermark(20);
        send("a:7", 5);
        send("a:8", 25);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("1@9", "wm 20", "8@29", "wm MAX");
        assertThat(op.lateRecordsDropped()).isEqualTo(1);
    }

    @Test
    void processingTimeWindowsFireOnTheClock() throws Exception {
        open(WindowAssigner.tumblingProcessingTime(Duration.ofMillis(100)), 0, null,
                WindowContents.aggregating(new SumValues()));
        h.advance(10);
        send("a:1", Long.MIN_VALUE);
        send("a:2", Long.MIN_VALUE);
        h.advance(88);
        assertThat(h.take()).isEmpty();
        h.advance(1);
        assertThat(h.take()).as("the window [0, 100) fires when the clock reaches its max timestamp 99")
                .containsExactly("3@99");
    }

    @Test
    void processingTimeWindowsStillOpenAtTheEndOfInputFireThenInTheOrderOfTheirEnds() throws Exception {
        open(WindowAssigner.slidingProcessingTime(Duration.ofMillis(100), Duration.ofMillis(50)), 0, null,
                WindowContents.aggregating(new SumValues()));
        h.advance(10);
        send("a:1", Long.MIN_VALUE);   // in [-50, 50) and [0, 100)
        h.advance(50);
        assertThat(h.take()).as("[-50, 50) ends at 49").containsExactly("1@49");
        send("a:2", Long.MIN_VALUE);   // at 60: in [0, 100) and [50, 150)
        send("b:4", Long.MIN_VALUE);
        h.finish();
        assertThat(h.take()).as("the open windows fire at the end of input, by end, then by key, each once")
                .containsExactly("3@99", "4@99", "2@149", "4@149");
        h.advance(1_000);
        assertThat(h.take()).as("nothing is left to fire on the clock afterwards").isEmpty();
    }

    @Test
    void processingTimeSessionsStillOpenAtTheEndOfInputFireThen() throws Exception {
        open(WindowAssigner.sessionProcessingTime(Duration.ofMillis(100)), 0, null,
                WindowContents.processing(new Describe()));
        send("a:1", Long.MIN_VALUE);
        h.advance(50);
        send("a:2", Long.MIN_VALUE);
        h.finish();
        assertThat(h.take()).containsExactly("a [0,150) 1,2,@149");
    }

    @Test
    void eventTimeWindowsAreLeftToTheFinalWatermarkAtTheEndOfInput() throws Exception {
        open(WindowAssigner.tumblingEventTime(Duration.ofMillis(100)), 0, null,
                WindowContents.aggregating(new SumValues()));
        send("a:1", 10);
        h.finish();
        assertThat(h.take()).as("finish alone fires no event-time window").isEmpty();
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("1@99", "wm MAX");
    }

    @Test
    void aSessionThatGrowsFiresOnceAtItsNewEndNotAtTheOldOne() throws Exception {
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 0, null, WindowContents.aggregating(new SumValues()));
        send("a:1", 0);  // [0,10)
        send("a:2", 5);  // grows to [0,15): the end timer moves from 9 to 14
        send("a:4", 3);  // [3,13) is inside [0,15): nothing moves
        h.watermark(9);
        assertThat(h.take()).as("the old end is not a timer any more").containsExactly("wm 9");
        h.watermark(14);
        assertThat(h.take()).containsExactly("7@14", "wm 14");
        assertThat(backend.numberOfKeys()).as("the fired session and its timers are gone from state").isZero();
    }

    @Test
    void anEarlierRecordWithinTheGapMovesTheSessionStartButNotItsEnd() throws Exception {
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 0, null, WindowContents.processing(new Describe()));
        send("a:1", 20); // [20,30)
        send("a:2", 12); // [12,22) joins: [12,30), same end
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("a [12,30) 1,2,@29", "wm MAX");
    }

    @Test
    void aRecordBridgingThreeSessionsMergesThemIntoOne() throws Exception {
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 0, null, WindowContents.aggregating(new SumValues()));
        send("a:1", 0);   // [0,10)
        send("a:2", 12);  // [12,22)
        send("a:4", 24);  // [24,34)
        send("a:8", 9);   // [9,19) touches [0,10) and [12,22): [0,22)
        send("a:16", 20); // [20,30) touches [0,22) and [24,34): [0,34)
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("31@33", "wm MAX");
        assertThat(backend.numberOfKeys()).isZero();
    }

    @Test
    void aLateRecordWithinTheLatenessGrowsAFiredSessionFiresItAgainAndMovesItsCleanUp() throws Exception {
        OutputTag<String> late = OutputTag.of("late");
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 20, late, WindowContents.aggregating(new SumValues()));
        send("a:1", 0);  // [0,10): end 9, clean-up 29
        h.watermark(12);
        assertThat(h.take()).containsExactly("1@9", "wm 12");
        send("a:2", 5);  // late, within the lateness: the session grows to [0,15), whose end 14 is still ahead
        assertThat(h.take()).isEmpty();
        h.watermark(14);
        assertThat(h.take()).containsExactly("3@14", "wm 14");
        send("a:4", 3);  // [3,13), inside [0,15), already fired: fires again at once
        assertThat(h.take()).containsExactly("7@14");
        h.watermark(32);
        assertThat(h.take()).containsExactly("wm 32");
        send("a:8", 4);  // [4,14) (its own clean-up 33 is ahead) joins [0,15), which is still there: its clean-up moved from 29 to 34
        assertThat(h.take()).containsExactly("15@14");
        h.watermark(34);
        send("a:16", 4); // [4,14) is now past its clean-up
        assertThat(h.take()).containsExactly("wm 34", "late: a:16@4");
        assertThat(backend.numberOfKeys()).isZero();
    }

    @Test
    void sessionsWhoseTimersShareATimeKeepEachOthersTimers() throws Exception {
        // With a gap and a lateness of 10, [0,10) has its end timer at 9 and its clean-up at 19, and
        // [10,20) has its end timer at 19: one timer of the key serves both.
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 10, null, WindowContents.aggregating(new SumValues()));
        send("a:1", 0);   // [0,10)
        send("a:2", 10);  // [10,20): adjacent, no merge
        send("a:4", 12);  // [10,22): its timers move from 19 and 29 to 21 and 31, but 19 is [0,10)'s clean-up
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("1@9", "6@21", "wm MAX");
        assertThat(backend.numberOfKeys()).as("[0,10) was cleaned up at 19").isZero();
    }

    @Test
    void processingTimeSessionsMoveTheirTimerAsTheyGrow() throws Exception {
        open(WindowAssigner.sessionProcessingTime(Duration.ofMillis(100)), 0, null,
                WindowContents.aggregating(new SumValues()));
        send("a:1", Long.MIN_VALUE); // at 0: [0,100)
        h.advance(60);
        send("a:2", Long.MIN_VALUE); // at 60: [0,160)
        h.advance(40);
        assertThat(h.take()).as("99 is no longer the session's end").isEmpty();
        h.advance(59);
        assertThat(h.take()).containsExactly("3@159");
        assertThat(backend.numberOfKeys()).isZero();
    }

    @Test
    void windowsAndTheirTimersAreRestoredFromASnapshot() throws Exception {
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 0, null, WindowContents.processing(new Describe()));
        send("a:1", 0);
        send("b:2", 5);
        DataOutputBuffer bytes = new DataOutputBuffer(256);
        backend.snapshot().writeTo(bytes);
        backend.close();
        backend = newBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
        backend.restore(List.of(new DataInputBuffer(bytes.toByteArray())));
        open(WindowAssigner.sessionEventTime(Duration.ofMillis(10)), 0, null, WindowContents.processing(new Describe()));
        send("a:3", 6);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("b [5,15) 2,@14", "a [0,16) 1,3,@15", "wm MAX");
    }
}
