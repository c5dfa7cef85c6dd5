package io.sluice.operators;

import io.sluice.api.functions.MapFunction;

/** Applies a {@link MapFunction}. */
public final class MapOperator<I, O> extends UdfOperator<I, O, MapFunction<I, O>> {
    public MapOperator(MapFunction<I, O> function, String name) {
        super(function, name);
    }

    @Override
    public void processElement(I value) throws Exception {
        output.collect(function.map(value));
    }
}
