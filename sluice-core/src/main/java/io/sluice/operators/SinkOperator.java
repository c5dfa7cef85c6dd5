package io.sluice.operators;

import io.sluice.api.functions.SinkFunction;

/** Hands every record to a {@link SinkFunction}; emits nothing. */
public final class SinkOperator<T> extends UdfOperator<T, Void, SinkFunction<T>> {
    public SinkOperator(SinkFunction<T> function, String name) {
        super(function, name);
    }

    @Override
    public void processElement(T value) throws Exception {
        function.invoke(value);
    }
}
