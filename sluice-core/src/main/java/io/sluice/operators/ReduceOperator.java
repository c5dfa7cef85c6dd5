package io.sluice.operators;

import io.sluice.api.functions.ReduceFunction;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.TypeSerializer;

/**
 * A keyed rolling reduce: keeps the current aggregate per key in {@link ValueState} and emits the
 * updated aggregate for every record.
 */
public final class ReduceOperator<T> extends UdfOperator<T, T, ReduceFunction<T>> {
    private final TypeSerializer<T> serializer;
    private transient ValueState<T> state;

    public ReduceOperator(ReduceFunction<T> function, TypeSerializer<T> serializer, String name) {
        super(function, name);
        this.serializer = serializer;
    }

    @Override
    public void open(OperatorContext context) throws Exception {
        super.open(context);
        if (context.keyedStateBackend() == null) {
            throw new IllegalStateException("reduce() runs on a KeyedStream only");
        }
        state = context.keyedStateBackend().getValueState(new ValueStateDescriptor<>("reduce", serializer));
    }

    @Override
    public void processElement(T value) throws Exception {
        T current = state.value();
        T next = current == null ? value : function.reduce(current, value);
        state.update(next);
        output.collect(next);
    }
}
