package io.sluice.storage.s3.sink;

import io.sluice.api.functions.RuntimeContext;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;

/** The runtime context of subtask {@code index} of {@code parallelism}, without keyed state: for sink tests. */
record SubtaskContext(int subtaskIndex, int parallelism) implements RuntimeContext {
    @Override
    public String taskName() {
        return "s3 sink";
    }

    @Override
    public int maxParallelism() {
        return 128;
    }

    @Override
    public int attemptNumber() {
        return 0;
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException("no keyed state in a sink test");
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException("no keyed state in a sink test");
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        throw new UnsupportedOperationException("no keyed state in a sink test");
    }
}
