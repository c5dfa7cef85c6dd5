package io.sluice.api.functions;

import java.io.Serializable;

/** One record in, any number out. */
@FunctionalInterface
public interface FlatMapFunction<I, O> extends Serializable {
    void flatMap(I value, Collector<O> out) throws Exception;
}
