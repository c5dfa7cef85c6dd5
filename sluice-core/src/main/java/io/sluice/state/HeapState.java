package io.sluice.state;

import io.sluice.api.state.StateDescriptor.Kind;
import java.util.HashMap;
import java.util.Map;

/**
 * One registered keyed state of a {@link HeapKeyedStateBackend}: a {@link HashMap} from user key to
 * that key's value, read and written for the backend's current key with one hash lookup.
 *
 * <p>Keys are the user's keys as handed to {@link HeapKeyedStateBackend#setCurrentKey}; they must
 * be immutable with a value-based, JVM-independent {@code hashCode}. An absent key means "no
 * state": subclasses never store {@code null}, an empty list or an empty map, so the table's size
 * is the number of keys with state.
 *
 * <p>Threading: task thread only. {@link #copyForSnapshot()} runs on the task thread; the copy it
 * returns is not touched by this class again, so another thread may read it.
 *
 * @param <S> the per-key value: the user's value, or the backend-owned list or map container
 */
abstract sealed class HeapState<S> permits HeapValueState, HeapListState, HeapMapState {
    final HashMap<Object, S> table = new HashMap<>();
    private final HeapKeyedStateBackend backend;
    private StateMetaInfo metaInfo;

    HeapState(HeapKeyedStateBackend backend, StateMetaInfo metaInfo) {
        this.backend = backend;
        this.metaInfo = metaInfo;
    }

    /** The current key; fails if no key was set, rather than storing state under {@code null}. */
    final Object currentKey() {
        Object key = backend.currentKey;
        if (key == null) {
            throw new IllegalStateException("State '" + metaInfo.name() + "' was accessed with no current key:"
                    + " keyed state can only be used while processing a record of a keyed stream");
        }
        return key;
    }

    final StateMetaInfo metaInfo() {
        return metaInfo;
    }

    /** Switches to the serializers of a newer descriptor (for example after a restore). */
    final void metaInfo(StateMetaInfo newMetaInfo) {
        this.metaInfo = newMetaInfo;
    }

    final Kind kind() {
        return metaInfo.kind();
    }

    /** The number of keys with a value in this state. */
    final int size() {
        return table.size();
    }

    /** Stores a value read from a snapshot, as produced by {@link StateMetaInfo#readValue}. */
    @SuppressWarnings("unchecked")
    final void restoreEntry(Object key, Object value) {
        table.put(key, (S) value);
    }

    /**
     * A copy of the table that later changes to this state do not affect, neither changes through
     * the state API nor changes user code makes to value objects it got from the state (the
     * {@code acc.n++; state.update(acc)} idiom): containers are new and user values are copied with
     * their serializers ({@link StateMetaInfo#copyValue}). Keys are shared: they must be immutable.
     * O(entries) on the task thread; for immutable value types a copy is the value itself.
     */
    final Map<Object, Object> copyForSnapshot() {
        StateMetaInfo info = metaInfo;
        HashMap<Object, Object> copy = new HashMap<>(table.size() * 4 / 3 + 1);
        table.forEach((key, value) -> copy.put(key, info.copyValue(value)));
        return copy;
    }
}
