package io.sluice.state;

import io.sluice.api.state.MapState;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link MapState} on the heap: one {@link StateMap} per key, owned by the backend. Each access is
 * one lookup of the current key (none when the previous access was for the same key object, see
 * {@link HeapState#lookup}) plus one in its map. A key whose map becomes empty is removed, so it no
 * longer counts as a key with state.
 *
 * <p>Map values are stored by reference; a snapshot shares a key's map if all its values are
 * immutable (their serializer's {@code copy} returns them as they are) and this state copies the map
 * before changing it afterwards, else the snapshot copies the map and its values at once. Either way
 * mutating a value after a snapshot was taken never shows in it. Map keys must be immutable, as for
 * any hash map. {@code null} map keys and values are rejected at {@code put} (remove the entry
 * instead), not when a checkpoint later fails to write them.
 *
 * <p>Iterables are read-only views of the live map, valid until the next change of this state: do
 * not change this state while iterating.
 *
 * <p>Threading: task thread only, like the backend.
 */
final class HeapMapState<K, V> extends HeapState<StateMap<K, V>> implements MapState<K, V> {

    HeapMapState(HeapKeyedStateBackend backend, StateMetaInfo metaInfo) {
        super(backend, metaInfo);
    }

    /** The key's map, to change: copied first if a snapshot shares it. */
    private StateMap<K, V> writable(Object stateKey) {
        StateMap<K, V> map = lookup(stateKey);
        int epoch = epoch();
        if (map != null && map.epoch != epoch) {
            map = new StateMap<>(map, epoch);
            store(stateKey, map);
        }
        return map;
    }

    @Override
    public V get(K key) {
        HashMap<K, V> map = lookup(currentKey());
        return map == null ? null : map.get(key);
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(key, () -> "Map state '" + metaInfo().name() + "' does not accept null map keys");
        Objects.requireNonNull(value, () -> "Map state '" + metaInfo().name()
                + "' does not accept null values; call remove(key) to drop an entry");
        Object stateKey = currentKey();
        StateMap<K, V> map = writable(stateKey);
        if (map == null) {
            map = new StateMap<>(epoch());
            store(stateKey, map);
        }
        map.put(key, value);
    }

    @Override
    public void remove(K key) {
        Object stateKey = currentKey();
        StateMap<K, V> map = lookup(stateKey);
        if (map == null || !map.containsKey(key)) {
            return;
        }
        map = writable(stateKey);
        map.remove(key);
        if (map.isEmpty()) {
            drop(stateKey);
        }
    }

    @Override
    public boolean contains(K key) {
        HashMap<K, V> map = lookup(currentKey());
        return map != null && map.containsKey(key);
    }

    @Override
    public Iterable<Map.Entry<K, V>> entries() {
        HashMap<K, V> map = lookup(currentKey());
        return map == null ? List.of() : Collections.unmodifiableMap(map).entrySet();
    }

    @Override
    public Iterable<K> keys() {
        HashMap<K, V> map = lookup(currentKey());
        return map == null ? List.of() : Collections.unmodifiableSet(map.keySet());
    }

    @Override
    public Iterable<V> values() {
        HashMap<K, V> map = lookup(currentKey());
        return map == null ? List.of() : Collections.unmodifiableCollection(map.values());
    }

    @Override
    public boolean isEmpty() {
        return lookup(currentKey()) == null;
    }

    @Override
    public void clear() {
        drop(currentKey());
    }

    /** Unchanged maps and maps of immutable values are shared, others copied: {@link HeapState#shareOrCopyContainers}. */
    @Override
    Map<Object, Object> snapshotTable(int oldEpoch, int newEpoch) {
        return shareOrCopyContainers(table, metaInfo(), oldEpoch, newEpoch);
    }
    @Override
    int removeExpiredOf(Object key, StateMap<K, V> map, long cutoffMillis) {
        int expired = 0;
        for (V value : map.values()) {
            if (expired(value, cutoffMillis)) {
                expired++;
            }
        }
        if (expired == 0) {
            return 0;
        }
        StateMap<K, V> own = writable(key);
        own.values().removeIf(v -> expired(v, cutoffMillis));
        if (own.isEmpty()) {
            drop(key);
        }
        return expired;
    }
}
