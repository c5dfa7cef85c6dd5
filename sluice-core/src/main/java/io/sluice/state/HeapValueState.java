package io.sluice.state;

import io.sluice.api.state.ValueState;
import java.util.HashMap;

/**
 * {@link ValueState} on the heap: each access is one lookup in a {@link HashMap} keyed by the
 * current key, with no allocation.
 *
 * <p>Values are stored by reference: {@link #value()} returns the stored object, and user code may
 * mutate it (and call {@link #update} or not). Snapshots copy values with the state's serializer
 * on the task thread, so a change made after a snapshot was taken never shows in it.
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
    int removeExpiredOf(Object key, T value, long cutoffMillis) {
        if (expired(value, cutoffMillis)) {
            drop(key);
            return 1;
        }
        return 0;
    }
}
