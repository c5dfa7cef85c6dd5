package io.sluice.state;

import io.sluice.api.state.ListState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link ListState} on the heap: one {@link ArrayList} per key, owned by the backend, found with
 * one lookup. A key whose list becomes empty is removed, so it no longer counts as a key with
 * state.
 *
 * <p>Elements are stored by reference; snapshots copy them with the element serializer on the task
 * thread, so mutating an element after a snapshot was taken never shows in it. {@code null} elements are rejected when added, not when a checkpoint later
 * fails to write them.
 *
 * <p>Threading: task thread only, like the backend.
 */
final class HeapListState<T> extends HeapState<ArrayList<T>> implements ListState<T> {

    HeapListState(HeapKeyedStateBackend backend, StateMetaInfo metaInfo) {
        super(backend, metaInfo);
    }

    /**
     * A read-only view of the current key's live list (later adds for the key show through it),
     * or an empty list.
     */
    @Override
    public Iterable<T> get() {
        ArrayList<T> list = table.get(currentKey());
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    @Override
    public void add(T value) {
        requireElement(value);
        Object key = currentKey();
        ArrayList<T> list = table.get(key);
        if (list == null) {
            list = new ArrayList<>(4);
            table.put(key, list);
        }
        list.add(value);
    }

    /** Replaces the current key's list with a copy of {@code values}; null or empty clears it. */
    @Override
    public void update(List<T> values) {
        if (values == null || values.isEmpty()) {
            clear();
            return;
        }
        ArrayList<T> copy = new ArrayList<>(values);
        copy.forEach(this::requireElement);
        table.put(currentKey(), copy);
    }

    @Override
    public void clear() {
        table.remove(currentKey());
    }


    private void requireElement(T value) {
        Objects.requireNonNull(value, () -> "List state '" + metaInfo().name()
                + "' does not hold null elements; filter nulls out before adding them");
    }
}
