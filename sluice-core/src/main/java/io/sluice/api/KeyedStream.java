package io.sluice.api;

import io.sluice.api.functions.KeyedProcessFunction;
import io.sluice.api.functions.KeySelector;
import io.sluice.api.functions.ReduceFunction;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.operators.KeyedProcessOperator;
import io.sluice.operators.ReduceOperator;
import java.util.Objects;

/**
 * A stream partitioned by key. Functions applied here ({@code map}, {@code flatMap},
 * {@code filter}, {@code reduce}) may use keyed state through their
 * {@link io.sluice.api.functions.RuntimeContext}, scoped to the key of the current record. Their
 * output is an ordinary, unkeyed stream.
 */
public final class KeyedStream<T, K> extends DataStream<T> {
    private final KeySelector<T, K> keySelector;
    private final TypeSerializer<K> keySerializer;

    KeyedStream(StreamExecutionEnvironment env, Transformation<T> partition, KeySelector<T, K> keySelector,
                TypeSerializer<K> keySerializer) {
        super(env, partition);
        this.keySelector = keySelector;
        this.keySerializer = keySerializer;
    }

    /** A rolling reduce per key: emits the new aggregate for each record. */
    public DataStream<T> reduce(ReduceFunction<T> fn) {
        DataStream<T> out = transform("Reduce", new ReduceOperator<>(Objects.requireNonNull(fn, "reduce function"),
                transformation.serializer, "Reduce"));
        out.transformation.serializer = transformation.serializer;
        return out;
    }

    /**
     * Applies a {@link KeyedProcessFunction}: per record, with the record's timestamp, the key's
     * state and timers. Its output carries event timestamps (those of the input, or of the firing
     * event-time timer).
     */
    public <O> SingleOutputStreamOperator<O> process(KeyedProcessFunction<K, T, O> fn) {
        DataStream<O> out = transform("KeyedProcess", new KeyedProcessOperator<>(
                Objects.requireNonNull(fn, "keyed process function"), "KeyedProcess"));
        return new SingleOutputStreamOperator<>(env, out.transformation);
    }

    /** Cuts the stream, per key, into windows (tumbling, sliding or session; event or processing time). */
    public WindowedStream<T, K> window(io.sluice.api.windowing.WindowAssigner assigner) {
        return new WindowedStream<>(this, assigner);
    }

    public KeySelector<T, K> keySelector() {
        return keySelector;
    }

    @Override
    protected KeySelector<T, ?> keySelectorOfInput() {
        return keySelector;
    }

    @Override
    protected TypeSerializer<?> keySerializerOfInput() {
        return keySerializer;
    }
}
