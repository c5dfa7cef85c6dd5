package io.sluice.state;

import io.sluice.api.state.MapState;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@link MapState} on the heap: one {@link HashMap} per key, owned by the backend. Each access is
 * one lookup of the current key plus one in its map. A key whose map becomes empty is removed, so
 * it no longer counts as a key with state.
 *
 * <p>Map keys and values are stored by reference; snapshots copy them with the state's serializers
 * on the task thread, so mutating a value after a snapshot was taken never shows in it. {@code null} map keys and values are rejected at {@code put}
 * (remove the entry instead), not when a checkpoint later fails to write them.
 *
 * <p>Iterables are read-only views of the live map: do not change this state while iterating.
 *
 * <p>Threading: task thread only, like the backend.
 */
final class HeapMapState<K, V> extends HeapState<HashMap<K, V>> implements MapState<K, V> {

    HeapMapState(HeapKeyedStateBackend backend, StateMetaInfo metaInfo) {
        super(backend, metaInfo);
    }

    @Override
    public V get(K key) {
        HashMap<K, V> map = table.get(currentKey());
        return map == null ? null : map.get(key);
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(key, () -> "Map state '" + metaInfo().name() + "' does not accept null map keys");
        Objects.requireNonNull(value, () -> "Map state '" + metaInfo().name()
                + "' does not accept null values; call remove(key) to drop an entry");
        Object stateKey = currentKey();
        HashMap<K, V> map = table.get(stateKey);
        if (map == null) {
            map = new HashMap<>();
            table.put(stateKey, map);
        }
        map.put(key, value);
    }

    @Override
    public void remove(K key) {
        Object stateKey = currentKey();
        HashMap<K, V> map = table.get(stateKey);
        if (map != null && map.remove(key) != null && map.isEmpty()) {
            table.remove(stateKey);
        }
    }

    @Override
    public boolean contains(K key) {
        HashMap<K, V> map = table.get(currentKey());
        return map != null && map.containsKey(key);
    }

    @Override
    public Iterable<Map.Entry<K, V>> entries() {
        HashMap<K, V> map = table.get(currentKey());
        return map == null ? List.of() : Collections.unmodifiableMap(map).entrySet();
    }

    @Override
    public Iterable<K> keys() {
        HashMap<K, V> map = table.get(currentKey());
        return map == null ? List.of() : Collections.unmodifiableSet(map.keySet());
    }

    @Override
    public Iterable<V> values() {
        HashMap<K, V> map = table.get(currentKey());
        return map == null ? List.of() : Collections.unmodifiableCollection(map.values());
    }

    @Override
    public boolean isEmpty() {
        return !table.containsKey(currentKey());
    }

    @Override
    public void clear() {
        table.remove(currentKey());
    }

}
