package io.sluice.operators;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.state.KeyedStateBackend;
import io.sluice.util.ManualClock;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs one operator on the test thread, as a task would, on a {@link ManualClock}: records what it
 * emits (records with their timestamps, watermarks, idle statuses) as strings, in order.
 */
final class OperatorHarness<I> {
    final ManualClock clock = new ManualClock(0);
    final RecordTimestamp timestamp = new RecordTimestamp();
    final List<String> out = new ArrayList<>();
    private final StreamOperator<I> operator;

    OperatorHarness(StreamOperator<I> operator, KeyedStateBackend backend) throws Exception {
        this.operator = operator;
        Output<Object> output = new Output<>() {
            @Override
            public void collect(Object record) {
                out.add(record + "@" + (timestamp.isSet() ? Long.toString(timestamp.get()) : "-"));
            }

            @Override
            public <X> void collect(io.sluice.api.functions.OutputTag<X> tag, X value) {
                out.add(tag.id() + ": " + value + "@" + (timestamp.isSet() ? Long.toString(timestamp.get()) : "-"));
            }

            @Override
            public void emitWatermark(long watermark) {
                out.add("wm " + (watermark == Long.MAX_VALUE ? "MAX" : watermark));
            }

            @Override
            public void emitIdleStatus(boolean idle) {
                out.add(idle ? "idle" : "active");
            }
        };
        operator.open(new OperatorContext() {
            @Override
            public RuntimeContext runtimeContext() {
                return null;
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> Output<T> output() {
                return (Output<T>) output;
            }

            @Override
            public KeyedStateBackend keyedStateBackend() {
                return backend;
            }

            @Override
            public RecordTimestamp recordTimestamp() {
                return timestamp;
            }

            @Override
            public io.sluice.util.Clock clock() {
                return clock;
            }
        });
    }

    void element(I value) throws Exception {
        timestamp.set(RecordTimestamp.NONE);
        operator.processElement(value);
    }

    void element(I value, long ts) throws Exception {
        timestamp.set(ts);
        operator.processElement(value);
    }

    void watermark(long wm) throws Exception {
        operator.processWatermark(wm);
    }

    void advance(long millis) throws Exception {
        clock.advance(java.time.Duration.ofMillis(millis));
        operator.advanceProcessingTime(clock.currentTimeMillis());
    }

    /** The wall clock steps by {@code step} alone (an NTP step), and the task tells the operator the time. */
    void stepWallClock(java.time.Duration step) throws Exception {
        clock.stepWallClock(step);
        operator.advanceProcessingTime(clock.currentTimeMillis());
    }

    /** What the operator says its next processing-time work is, in milliseconds from now. */
    long millisUntilNextWork() {
        long now = clock.currentTimeMillis();
        return operator.nextProcessingTimeMillis(now) - now;
    }

    /** End of input, as the task signals it. */
    void finish() throws Exception {
        operator.finish();
    }

    List<String> take() {
        List<String> copy = List.copyOf(out);
        out.clear();
        return copy;
    }
}
