package io.sluice.api.functions;

import java.io.Serializable;

/**
 * The lowest-level function on a keyed stream ({@code keyedStream.process(fn)}): sees each record
 * with its timestamp, may use keyed state (through the {@link RuntimeContext} given to
 * {@link #open}) and timers, and emits any number of records. {@link #onTimer} runs for the key the
 * timer was registered for, with that key's state. Called on the task thread only.
 *
 * @param <K> the key type
 * @param <I> the input record type
 * @param <O> the output record type
 */
public abstract class KeyedProcessFunction<K, I, O> implements RichFunction, Serializable {

    public abstract void processElement(I value, Context<K> ctx, Collector<O> out) throws Exception;

    /** A timer registered through {@link Context#timerService()} fired. Nothing by default. */
    public void onTimer(long timestamp, OnTimerContext<K> ctx, Collector<O> out) throws Exception {}

    /** What a process function can see and do while it handles a record. */
    public interface Context<K> {
        /** The record's event timestamp, or {@code null} if it has none (no watermark strategy upstream). */
        Long timestamp();

        K getCurrentKey();

        TimerService timerService();

        /** Emits {@code value} to the side output {@code tag} (read with {@code getSideOutput(tag)}), with the current timestamp. */
        <X> void output(io.sluice.api.functions.OutputTag<X> tag, X value);
    }

    /** The context of a timer callback. */
    public interface OnTimerContext<K> extends Context<K> {
        TimeDomain timeDomain();
    }
}
