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
 * <p><b>Current-key cache.</b> {@link #lookup} remembers the last key it looked up (by identity)
 * and what the table held for it, so the several accesses one record makes to the same state (a
 * window's contents: find, read, write; a timer: check, add) cost one hash lookup. Every change to
 * the table goes through {@link #store} and {@link #drop}, which keep the cache true.
 *
 * <p><b>Snapshots.</b> {@link #snapshotTable} runs on the task thread and returns a table that later
 * changes to this state do not affect. Value states copy every value with its serializer (the
 * identity for immutable types). List and map states share their per-key containers
 * ({@link StateList}, {@link StateMap}) with the snapshot when everything in them is immutable, and
 * copy a shared container before its first change afterwards (copy-on-write); containers holding
 * mutable objects are copied at once, as values are.
 *
 * <p>Threading: task thread only. The table {@link #snapshotTable} returns is not touched by this
 * class again, and containers it shares are never changed, so another thread may read them.
 *
 * @param <S> the per-key value: the user's value, or the backend-owned list or map container
 */
abstract sealed class HeapState<S> implements KeyedSnapshotReader.RestoredState
        permits HeapValueState, HeapListState, HeapMapState {
    final HashMap<Object, S> table = new HashMap<>();
    private final HeapKeyedStateBackend backend;
    private StateMetaInfo metaInfo;
    /** The key {@link #lookup} last saw, compared by identity; {@code null}: nothing cached. */
    private Object cachedKey;
    /** {@code table.get(cachedKey)}, {@code null} for no entry. */
    private S cachedValue;

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

    /** The snapshot epoch of the backend: containers stamped with it are owned by the live table alone. */
    final int epoch() {
        return backend.snapshotEpoch;
    }

    /** {@code table.get(key)}, through the current-key cache. */
    final S lookup(Object key) {
        if (key == cachedKey) {
            return cachedValue;
        }
        S value = table.get(key);
        cachedKey = key;
        cachedValue = value;
        return value;
    }

    /** {@code table.put(key, value)}, keeping the cache true. */
    final void store(Object key, S value) {
        table.put(key, value);
        cachedKey = key;
        cachedValue = value;
    }

    /** {@code table.remove(key)}, keeping the cache true. */
    final void drop(Object key) {
        table.remove(key);
        cachedKey = key;
        cachedValue = null;
    }

    /** The background clean-up's cursor: the keys of a round, and the next to look at. */
    private Object[] cleanupKeys;
    private int cleanupIndex;

    /**
     * The background clean-up of a state with a time-to-live (its values are
     * {@link io.sluice.core.serialization.TimestampedValue}s): looks at up to {@code keys} keys from
     * where the previous call stopped (a round goes over the keys the table had when it started) and
     * removes the values stamped at or before {@code cutoffMillis}, keeping copy-on-write.
     *
     * @return the values (list elements, map entries) removed
     */
    final int removeExpired(int keys, long cutoffMillis) {
        if (cleanupKeys == null) {
            if (table.isEmpty()) {
                return 0;
            }
            cleanupKeys = table.keySet().toArray();
            cleanupIndex = 0;
        }
        int removed = 0;
        int end = Math.min(cleanupKeys.length, cleanupIndex + keys);
        for (; cleanupIndex < end; cleanupIndex++) {
            Object key = cleanupKeys[cleanupIndex];
            S value = table.get(key);
            if (value != null) {
                removed += removeExpiredOf(key, value, cutoffMillis);
            }
        }
        if (cleanupIndex >= cleanupKeys.length) {
            cleanupKeys = null; // the next round starts with the keys there are then
        }
        return removed;
    }

    /** Removes what of {@code key}'s value is stamped at or before {@code cutoffMillis}; how many values went. */
    abstract int removeExpiredOf(Object key, S value, long cutoffMillis);

    static boolean expired(Object timestamped, long cutoffMillis) {
        return ((io.sluice.core.serialization.TimestampedValue<?>) timestamped).timestampMillis() <= cutoffMillis;
    }

    final StateMetaInfo metaInfo() {
        return metaInfo;
    }

    /** Switches to the serializers of a newer descriptor (for example after a restore). */
    final void metaInfo(StateMetaInfo newMetaInfo) {
        this.metaInfo = newMetaInfo;
    }

    /**
     * Checks that {@code newMetaInfo}'s serializers can write every value this state holds (they
     * replace the serializers a restore registered it with, see {@link StateRegistration}): writes each
     * once into a scratch buffer. O(entries), once per restore.
     *
     * @throws io.sluice.core.serialization.SerializationException naming the state if one cannot be written
     */
    final void checkWritableWith(StateMetaInfo newMetaInfo, String owner) {
        io.sluice.core.serialization.DataOutputBuffer scratch = new io.sluice.core.serialization.DataOutputBuffer(256);
        for (S value : table.values()) {
            scratch.clear();
            try {
                newMetaInfo.writeValue(value, scratch);
            } catch (RuntimeException e) {
                throw new io.sluice.core.serialization.SerializationException("State '" + metaInfo.name() + "' of "
                        + owner + " cannot be written with the serializers the job now declares (" + e + "): the"
                        + " values it holds are not of the declared type. Restore with the job version that wrote it,"
                        + " or give the state a new name", e);
            }
        }
    }

    final Kind kind() {
        return metaInfo.kind();
    }

    /** The number of keys with a value in this state. */
    final int size() {
        return table.size();
    }

    /** Stores a value read from a snapshot, as produced by {@link StateMetaInfo#readValue}. */
    @Override
    @SuppressWarnings("unchecked")
    public final void restore(int keyGroup, Object key, Object value) {
        table.put(key, (S) value);
        cachedKey = null;
        cachedValue = null;
    }

    /**
     * A table for a snapshot that later changes to this state do not affect, neither changes through
     * the state API nor changes user code makes to value objects it got from the state (the
     * {@code acc.n++; state.update(acc)} idiom). Called by the backend on the task thread while its
     * epoch goes from {@code oldEpoch} to {@code newEpoch}. Keys are shared: they must be immutable.
     * This implementation, for value states, copies every value with its serializer
     * ({@link StateMetaInfo#copyValue}): O(entries), and for immutable value types a copy is the value
     * itself.
     */
    Map<Object, Object> snapshotTable(int oldEpoch, int newEpoch) {
        StateMetaInfo info = metaInfo;
        HashMap<Object, Object> copy = new HashMap<>(table.size() * 4 / 3 + 1);
        table.forEach((key, value) -> copy.put(key, info.copyValue(value)));
        return copy;
    }

    /**
     * The {@link #snapshotTable} of a list or map state: shares each key's container with the
     * snapshot if nothing in it can change: a container not changed since an earlier snapshot shared
     * it (its epoch is older than {@code oldEpoch}), or one whose elements or values are all
     * immutable. Other containers are copied with their contents, and are stamped {@code newEpoch}:
     * they stay the live table's own.
     */
    static <C extends EpochStamped> Map<Object, Object> shareOrCopyContainers(HashMap<Object, C> table,
                                                                           StateMetaInfo info, int oldEpoch,
                                                                           int newEpoch) {
        HashMap<Object, Object> copy = new HashMap<>(table.size() * 4 / 3 + 1);
        for (Map.Entry<Object, C> e : table.entrySet()) {
            C container = e.getValue();
            if (container.epoch() != oldEpoch || info.holdsOnlyImmutable(container)) {
                copy.put(e.getKey(), container);
            } else {
                copy.put(e.getKey(), info.copyValue(container));
                container.stamp(newEpoch);
            }
        }
        return copy;
    }
}
