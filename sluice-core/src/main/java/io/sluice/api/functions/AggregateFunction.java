package io.sluice.api.functions;

import java.io.Serializable;

/**
 * Aggregates the records of a window incrementally into an accumulator; only the accumulator is
 * kept in state. {@link #merge} combines two accumulators (session windows merge). Accumulators
 * may be mutated and returned. Called on the task thread.
 */
public interface AggregateFunction<IN, ACC, OUT> extends Serializable {
    ACC createAccumulator();

    ACC add(IN value, ACC accumulator);

    OUT getResult(ACC accumulator);

    ACC merge(ACC a, ACC b);
}
