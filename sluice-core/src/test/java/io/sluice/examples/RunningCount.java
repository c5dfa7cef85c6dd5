package io.sluice.examples;

import io.sluice.api.functions.MapFunction;
import io.sluice.api.functions.RichFunction;
import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;

/**
 * Counts records per key in a {@code ValueState<Long>} and emits the new count, with nothing else on
 * the per-record path: the keyed function the throughput benchmarks measure (and the Flink
 * comparison runs in its Flink form). Called by its task's thread only.
 */
public final class RunningCount implements MapFunction<Long, Long>, RichFunction {
    private static final long serialVersionUID = 1L;
    private transient ValueState<Long> count;

    @Override
    public void open(RuntimeContext context) {
        count = context.getState(new ValueStateDescriptor<>("count", Serializers.LONG));
    }

    @Override
    public Long map(Long value) {
        Long c = count.value();
        Long next = c == null ? 1L : c + 1;
        count.update(next);
        return next;
    }
}
