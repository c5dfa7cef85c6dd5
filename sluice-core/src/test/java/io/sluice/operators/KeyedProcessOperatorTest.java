package io.sluice.operators;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.functions.Collector;
import io.sluice.api.functions.KeyedProcessFunction;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.state.HeapKeyedStateBackend;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyGroupRange;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Timers of a {@link KeyedProcessOperator} on a manual clock: firing order, deduplication,
 * deletion, and timers in snapshots (each pending timer fires exactly once after a restore, and
 * processing-time timers that came due while the job was down fire at once).
 */
class KeyedProcessOperatorTest {
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

    /**
     * Records are "key:command:time": "e" registers an event-time timer, "p" a processing-time one,
     * "de"/"dp" delete them. Emits what it sees and each timer as "fired key domain time @timestamp".
     */
    static final class TimerCommands extends KeyedProcessFunction<String, String, String> {
        @Override
        public void processElement(String value, Context<String> ctx, Collector<String> out) {
            String[] p = value.split(":");
            long t = Long.parseLong(p[2]);
            switch (p[1]) {
                case "e" -> ctx.timerService().registerEventTimeTimer(t);
                case "p" -> ctx.timerService().registerProcessingTimeTimer(t);
                case "de" -> ctx.timerService().deleteEventTimeTimer(t);
                case "dp" -> ctx.timerService().deleteProcessingTimeTimer(t);
                default -> throw new IllegalArgumentException(value);
            }
        }

        @Override
        public void onTimer(long timestamp, OnTimerContext<String> ctx, Collector<String> out) {
            out.collect("fired " + ctx.getCurrentKey() + " " + ctx.timeDomain() + " " + timestamp
                    + " wm=" + ctx.timerService().currentWatermark());
        }
    }

    private KeyedStateBackend backend = newBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
    private OperatorHarness<String> h;

    private void open() throws Exception {
        h = new OperatorHarness<>(new KeyedProcessOperator<>(new TimerCommands(), "KeyedProcess"), backend);
    }

    private void send(String record) throws Exception {
        backend.setCurrentKey(record.split(":")[0]);
        h.element(record, 1);
    }

    @Test
    void eventTimeTimersFireInTimeThenKeyOrderWhenTheWatermarkPassesThem() throws Exception {
        open();
        send("b:e:20");
        send("a:e:20");
        send("c:e:10");
        send("a:e:30");
        h.watermark(9);
        assertThat(h.take()).containsExactly("wm 9");
        h.watermark(25);
        assertThat(h.take()).containsExactly("fired c EVENT_TIME 10 wm=25@10", "fired a EVENT_TIME 20 wm=25@20",
                "fired b EVENT_TIME 20 wm=25@20", "wm 25");
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly("fired a EVENT_TIME 30 wm=" + Long.MAX_VALUE + "@30", "wm MAX");
    }

    @Test
    void timersAreDeduplicatedPerKeyAndTimeAndCanBeDeleted() throws Exception {
        open();
        send("a:e:10");
        send("a:e:10");
        send("b:e:10");
        send("b:de:10");
        send("a:p:100");
        send("a:p:100");
        send("a:p:200");
        send("a:dp:200");
        h.watermark(50);
        h.advance(1_000);
        assertThat(h.take()).containsExactly("fired a EVENT_TIME 10 wm=50@10", "wm 50",
                "fired a PROCESSING_TIME 100 wm=50@-");
    }

    @Test
    void processingTimeTimersFireWhenTheClockReachesThem() throws Exception {
        open();
        send("a:p:100");
        send("b:p:50");
        h.advance(49);
        assertThat(h.take()).isEmpty();
        h.advance(1);
        assertThat(h.take()).containsExactly("fired b PROCESSING_TIME 50 wm=" + Long.MIN_VALUE + "@-");
        h.advance(50);
        assertThat(h.take()).containsExactly("fired a PROCESSING_TIME 100 wm=" + Long.MIN_VALUE + "@-");
    }

    @Test
    void pendingTimersAreInTheSnapshotAndFireExactlyOnceAfterARestorePerKey() throws Exception {
        open();
        for (String k : List.of("a", "b", "c", "d")) {
            send(k + ":e:100");
            send(k + ":p:500");
        }
        send("a:e:10");
        h.watermark(50); // fires a@10 before the snapshot: it must not fire again after the restore
        assertThat(h.take()).containsExactly("fired a EVENT_TIME 10 wm=50@10", "wm 50");
        DataOutputBuffer bytes = new DataOutputBuffer(256);
        backend.snapshot().writeTo(bytes);

        // The job goes down; while it is down processing time passes the timers' 500.
        backend.close();
        backend = newBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
        backend.restore(List.of(new DataInputBuffer(bytes.toByteArray())));
        open();
        h.clock.advance(java.time.Duration.ofMillis(10_000));
        h.advance(0);
        assertThat(h.take()).as("due while down: fire on restore, once per key").containsExactly(
                "fired a PROCESSING_TIME 500 wm=" + Long.MIN_VALUE + "@-",
                "fired b PROCESSING_TIME 500 wm=" + Long.MIN_VALUE + "@-",
                "fired c PROCESSING_TIME 500 wm=" + Long.MIN_VALUE + "@-",
                "fired d PROCESSING_TIME 500 wm=" + Long.MIN_VALUE + "@-");
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).containsExactly(
                "fired a EVENT_TIME 100 wm=" + Long.MAX_VALUE + "@100",
                "fired b EVENT_TIME 100 wm=" + Long.MAX_VALUE + "@100",
                "fired c EVENT_TIME 100 wm=" + Long.MAX_VALUE + "@100",
                "fired d EVENT_TIME 100 wm=" + Long.MAX_VALUE + "@100", "wm MAX");
        h.advance(100_000);
        h.watermark(Long.MAX_VALUE);
        assertThat(h.take()).as("nothing fires twice").isEmpty();
    }
}
