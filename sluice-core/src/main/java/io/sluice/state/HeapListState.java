package io.sluice.state;

import io.sluice.api.state.ListState;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link ListState} on the heap: one {@link StateList} per key, owned by the backend, found with
 * one lookup. A key whose list becomes empty is removed, so it no longer counts as a key with
 * state.
 *
 * <p>Elements are stored by reference; a snapshot shares a key's list if all its elements are
 * immutable and this state copies the list before changing it afterwards, else the snapshot copies
 * the list and its elements at once, so mutating an element after a snapshot was taken never shows
 * in it. {@code null} elements are rejected when added, not when a checkpoint later fails to write
 * them.
 *
 * <p>Threading: task thread only, like the backend.
 */
final class HeapListState<T> extends HeapState<StateList<T>> implements ListState<T> {

    HeapListState(HeapKeyedStateBackend backend, StateMetaInfo metaInfo) {
        super(backend, metaInfo);
    }

    /**
     * A read-only view of the current key's live list (later adds for the key show through it
     * until the next checkpoint, after which the state may copy the list), or an empty list.
     */
    @Override
    public Iterable<T> get() {
        StateList<T> list = lookup(currentKey());
        return list == null ? List.of() : Collections.unmodifiableList(list);
    }

    @Override
    public void add(T value) {
        requireElement(value);
        Object key = currentKey();
        StateList<T> list = lookup(key);
        int epoch = epoch();
        if (list == null) {
            list = new StateList<>(4, epoch);
            store(key, list);
        } else if (list.epoch != epoch) {
            list = new StateList<>(list, epoch); // a snapshot shares the old one
            store(key, list);
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
        StateList<T> copy = new StateList<>(values, epoch());
        copy.forEach(this::requireElement);
        store(currentKey(), copy);
    }

    @Override
    public void clear() {
        drop(currentKey());
    }

    /** Unchanged or all-immutable lists are shared, others copied: {@link HeapState#shareOrCopyContainers}. */
    @Override
    Map<Object, Object> snapshotTable(int oldEpoch, int newEpoch) {
        return shareOrCopyContainers(table, metaInfo(), oldEpoch, newEpoch);
    }

    private void requireElement(T value) {
        Objects.requireNonNull(value, () -> "List state '" + metaInfo().name()
                + "' does not hold null elements; filter nulls out before adding them");
    }
    /** A list with expired elements is replaced by a new one of the others (the old one may be a snapshot's). */
    @Override
    int removeExpiredOf(Object key, StateList<T> list, long cutoffMillis) {
        int expired = 0;
        for (T element : list) {
            if (expired(element, cutoffMillis)) {
                expired++;
            }
        }
        if (expired == 0) {
            return 0;
        }
        StateList<T> kept = new StateList<>(list.size() - expired, epoch());
        for (T element : list) {
            if (!expired(element, cutoffMillis)) {
                kept.add(element);
            }
        }
        if (kept.isEmpty()) {
            drop(key);
        } else {
            store(key, kept);
        }
        return expired;
    }
}
