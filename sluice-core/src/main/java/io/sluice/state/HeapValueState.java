package io.sluice.state;

import io.sluice.api.state.ValueState;
import java.util.HashMap;
import java.util.Map;

/**
 * {@link ValueState} on the heap: each access is one lookup in a {@link HashMap} keyed by the
 * current key, with no allocation.
 *
 * <p>Values are stored by reference and shared with snapshots: a value must not be mutated after
 * it was passed to {@link #update}; update with a new object instead.
 *
 * <p>Threading: task thread only, like the backend.
 */
final class HeapValueState<T> extends HeapState<T> implements ValueState<T> {

    HeapValueState(HeapKeyedStateBackend backend, StateMetaInfo metaInfo) {
        super(backend, metaInfo);
    }

    @Override
    public T value() {
        return table.get(currentKey());
    }

    /** Sets the current key's value; {@code null} is the same as {@link #clear()}. */
    @Override
    public void update(T value) {
        if (value == null) {
            table.remove(currentKey());
        } else {
            table.put(currentKey(), value);
        }
    }

    @Override
    public void clear() {
        table.remove(currentKey());
    }

    @Override
    Map<Object, Object> copyForSnapshot() {
        return new HashMap<>(table);
    }
}
