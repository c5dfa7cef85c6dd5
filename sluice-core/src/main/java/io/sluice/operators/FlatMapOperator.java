package io.sluice.operators;

import io.sluice.api.functions.FlatMapFunction;

/** Applies a {@link FlatMapFunction}; the operator's output is the function's collector. */
public final class FlatMapOperator<I, O> extends UdfOperator<I, O, FlatMapFunction<I, O>> {
    public FlatMapOperator(FlatMapFunction<I, O> function, String name) {
        super(function, name);
    }

    @Override
    public void processElement(I value) throws Exception {
        function.flatMap(value, output);
    }
}
