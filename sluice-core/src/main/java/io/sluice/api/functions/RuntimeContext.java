package io.sluice.api.functions;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;

/**
 * What a running function can see of its task. Keyed state is available only to functions applied
 * on a {@code KeyedStream}; it is scoped to the key of the record being processed.
 */
public interface RuntimeContext {
    String taskName();

    int subtaskIndex();

    int parallelism();

    int maxParallelism();

    /** 0 for the first run of this task, incremented on each restart of the job. */
    int attemptNumber();

    <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor);

    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor);
}
