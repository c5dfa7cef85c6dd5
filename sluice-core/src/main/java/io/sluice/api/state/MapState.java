package io.sluice.api.state;

import java.util.Map;

/** A map per key. */
public interface MapState<K, V> {
    V get(K key);

    void put(K key, V value);

    void remove(K key);

    boolean contains(K key);

    Iterable<Map.Entry<K, V>> entries();

    Iterable<K> keys();

    Iterable<V> values();

    boolean isEmpty();

    void clear();
}
