package io.sluice.operators;

import io.sluice.api.functions.FilterFunction;

/** Applies a {@link FilterFunction}. */
public final class FilterOperator<T> extends UdfOperator<T, T, FilterFunction<T>> {
    public FilterOperator(FilterFunction<T> function, String name) {
        super(function, name);
    }

    @Override
    public void processElement(T value) throws Exception {
        if (function.filter(value)) {
            output.collect(value);
        }
    }
}
