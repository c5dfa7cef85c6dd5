package io.sluice.state.ttl;

import io.sluice.api.state.MapState;
import io.sluice.core.serialization.TimestampedValue;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;

/**
 * A {@link MapState} with a time-to-live per map entry, over any backend's map state of timestamped
 * values. {@link #get} of an expired entry removes it; iteration skips expired entries and, when it
 * reaches the end, removes the ones it skipped (not during the iteration, which a heap map would
 * refuse). Task thread only.
 */
final class TtlMapState<K, V> implements MapState<K, V> {
    private final MapState<K, TimestampedValue<V>> internal;
    private final Expiry expiry;

    TtlMapState(MapState<K, TimestampedValue<V>> internal, Expiry expiry) {
        this.internal = internal;
        this.expiry = expiry;
    }

    @Override
    public V get(K key) {
        TimestampedValue<V> v = internal.get(key);
        if (v == null) {
            return null;
        }
        long now = expiry.now();
        if (expiry.expired(v, now)) {
            if (expiry.hidesExpired()) {
                internal.remove(key);
                return null;
            }
            return v.value();
        }
        if (expiry.refreshOnRead()) {
            internal.put(key, new TimestampedValue<>(v.value(), now));
        }
        return v.value();
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(value, "Map state values must not be null; call remove(key) to drop an entry");
        internal.put(key, new TimestampedValue<>(value, expiry.now()));
    }

    @Override
    public void remove(K key) {
        internal.remove(key);
    }

    @Override
    public boolean contains(K key) {
        return get(key) != null;
    }

    @Override
    public Iterable<Map.Entry<K, V>> entries() {
        return () -> new LiveEntries<>(this, e -> e);
    }

    @Override
    public Iterable<K> keys() {
        return () -> new LiveEntries<>(this, Map.Entry::getKey);
    }

    @Override
    public Iterable<V> values() {
        return () -> new LiveEntries<>(this, Map.Entry::getValue);
    }

    @Override
    public boolean isEmpty() {
        return !new LiveEntries<>(this, e -> e).hasNext();
    }

    @Override
    public void clear() {
        internal.clear();
    }

    /** The entries not expired; the expired ones seen are removed once the iteration has reached the end. */
    private static final class LiveEntries<K, V, R> implements Iterator<R> {
        private final TtlMapState<K, V> state;
        private final Iterator<Map.Entry<K, TimestampedValue<V>>> all;
        private final Function<Map.Entry<K, V>, R> project;
        private final long now;
        private final List<K> expired = new ArrayList<>();
        private Map.Entry<K, V> next;

        LiveEntries(TtlMapState<K, V> state, Function<Map.Entry<K, V>, R> project) {
            this.state = state;
            this.all = state.internal.entries().iterator();
            this.project = project;
            this.now = state.expiry.now();
        }

        @Override
        public boolean hasNext() {
            while (next == null && all.hasNext()) {
                Map.Entry<K, TimestampedValue<V>> e = all.next();
                if (state.expiry.expired(e.getValue(), now) && state.expiry.hidesExpired()) {
                    expired.add(e.getKey());
                } else {
                    next = new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue().value());
                }
            }
            if (next == null && !expired.isEmpty()) {
                expired.forEach(state.internal::remove);
                expired.clear();
            }
            return next != null;
        }

        @Override
        public R next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            Map.Entry<K, V> e = next;
            next = null;
            return project.apply(e);
        }
    }
}
