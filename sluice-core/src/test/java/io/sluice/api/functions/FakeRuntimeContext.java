package io.sluice.api.functions;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RuntimeContext} of subtask {@code subtaskIndex} of {@code parallelism}, without keyed state, for
 * calling {@code open} or creating sink writers and committers in unit tests. Checkpointing is off unless
 * {@link #withCheckpointInterval} says otherwise. In the core test jar: the sink tests of other modules use it.
 * Immutable; any thread.
 */
public final class FakeRuntimeContext implements RuntimeContext {
    private final int subtaskIndex;
    private final int parallelism;
    private final @Nullable Duration checkpointInterval;

    public FakeRuntimeContext(int subtaskIndex, int parallelism) {
        this(subtaskIndex, parallelism, null);
    }

    private FakeRuntimeContext(int subtaskIndex, int parallelism, @Nullable Duration checkpointInterval) {
        this.subtaskIndex = subtaskIndex;
        this.parallelism = parallelism;
        this.checkpointInterval = checkpointInterval;
    }

    /** The same subtask in a job that checkpoints every {@code interval} ({@code null}: checkpointing off). */
    public FakeRuntimeContext withCheckpointInterval(@Nullable Duration interval) {
        return new FakeRuntimeContext(subtaskIndex, parallelism, interval);
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
    public @Nullable Duration checkpointInterval() {
        return checkpointInterval;
    }

    @Override
    public <T> ValueState<T> getState(ValueStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException("no keyed state in this test");
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        throw new UnsupportedOperationException("no keyed state in this test");
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        throw new UnsupportedOperationException("no keyed state in this test");
    }
}
