package io.sluice.api.functions;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;

/** A {@link RuntimeContext} for calling {@code open} in unit tests; it has no state. */
public final class FakeRuntimeContext implements RuntimeContext {
    private final int subtaskIndex;
    private final int parallelism;

    public FakeRuntimeContext(int subtaskIndex, int parallelism) {
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
    }

    @Override
    public String taskName() {
        return "test-task";
    }

    @Override
    public int subtaskIndex() {
        return subtaskIndex;
    }

    @Override
    public int parallelism() {
        return parallelism;
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
        throw new UnsupportedOperationException("not needed in this test");
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException("not needed in this test");
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        throw new UnsupportedOperationException("not needed in this test");
    }
}
