package io.sluice.state.rocksdb;

import io.sluice.api.state.MapState;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.StateMetaInfo;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.function.Function;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * {@link MapState} in RocksDB: one entry per map entry, its RocksDB key the current key's bytes
 * followed by the map key's, so that {@link #get}, {@link #put} and {@link #remove} touch one entry
 * and a key's entries are contiguous. Iteration goes through the key's entries in batches of
 * {@value #BATCH} (in the order of the map keys' bytes), each batch a fresh seek after the last
 * entry seen, so a key with a huge map is never read whole and the state may be changed between
 * batches (an entry added behind the iterator's position may or may not be seen).
 *
 * <p>Threading: task thread only.
 */
final class RocksDbMapState<K, V> extends RocksDbState implements MapState<K, V> {
    /** Entries read per seek while iterating. */
    static final int BATCH = 128;

    RocksDbMapState(RocksDbKeyedStateBackend backend, ColumnFamilyHandle column, StateMetaInfo metaInfo) {
        super(backend, column, metaInfo);
    }

    /** The RocksDB key of map key {@code key} of the current key. */
    private byte[] entryKey(K key) {
        byte[] prefix = currentKey();
        DataOutputBuffer out = backend.scratch;
        out.clear();
        out.write(prefix, 0, prefix.length);
        metaInfo().serializer(0).serialize(key, out);
        return Arrays.copyOf(out.array(), out.position());
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(K key) {
        byte[] bytes = get(entryKey(key));
        return bytes == null ? null : (V) read(metaInfo().serializer(1), bytes);
    }

    @Override
    public void put(K key, V value) {
        Objects.requireNonNull(key, () -> "Map state '" + name() + "' does not accept null map keys");
        Objects.requireNonNull(value, () -> "Map state '" + name()
                + "' does not accept null values; call remove(key) to drop an entry");
        byte[] entryKey = entryKey(key);
        put(entryKey, bytesOf(metaInfo().serializer(1), value));
    }

    @Override
    public void remove(K key) {
        delete(entryKey(key));
    }

    @Override
    public boolean contains(K key) {
        return get(entryKey(key)) != null;
    }

    @Override
    public Iterable<Map.Entry<K, V>> entries() {
        return () -> new EntryIterator<>(this, currentKey(), e -> e);
    }

    @Override
    public Iterable<K> keys() {
        return () -> new EntryIterator<>(this, currentKey(), Map.Entry::getKey);
    }

    @Override
    public Iterable<V> values() {
        return () -> new EntryIterator<>(this, currentKey(), Map.Entry::getValue);
    }

    @Override
    public boolean isEmpty() {
        byte[] prefix = currentKey();
        try (RocksIterator it = backend.db().newIterator(column(), backend.readOptions)) {
            it.seek(prefix);
            return !(it.isValid() && RocksDbKeys.startsWith(it.key(), prefix));
        }
    }

    /** Deletes the current key's entries, one by one in a batch (no range tombstones, which slow later reads). */
    @Override
    public void clear() {
        byte[] prefix = currentKey();
        try (RocksIterator it = backend.db().newIterator(column(), backend.readOptions);
             WriteBatch batch = new WriteBatch()) {
            for (it.seek(prefix); it.isValid() && RocksDbKeys.startsWith(it.key(), prefix); it.next()) {
                batch.delete(column(), it.key());
            }
            backend.write(batch);
        } catch (RocksDBException e) {
            throw backend.failure("clear map state '" + name() + "'", e);
        }
    }

    @Override
    void restore(RestoreBatch batch, byte[] key, Object value) {
        TypeSerializer<Object> keys = metaInfo().serializer(0);
        TypeSerializer<Object> values = metaInfo().serializer(1);
        DataOutputBuffer out = new DataOutputBuffer(key.length + 16);
        for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
            out.clear();
            out.write(key, 0, key.length);
            keys.serialize(e.getKey(), out);
            batch.put(column(), Arrays.copyOf(out.array(), out.position()), bytesOf(values, e.getValue()));
        }
    }

    @Override
    void migrateEntry(StateMetaInfo old, StateMetaInfo requested, byte[] key, byte[] value, WriteBatch batch)
            throws RocksDBException {
        DataInputBuffer in = new DataInputBuffer(key);
        in.position(RocksDbKeys.KEY_GROUP_BYTES);
        backend.keySerializer().deserialize(in);
        int prefixLength = in.position();
        Object mapKey = old.serializer(0).deserialize(in);
        DataOutputBuffer out = new DataOutputBuffer(key.length + 16);
        out.write(key, 0, prefixLength);
        requested.serializer(0).serialize(mapKey, out);
        byte[] newKey = Arrays.copyOf(out.array(), out.position());
        if (!Arrays.equals(newKey, key)) {
            batch.delete(column(), key);
        }
        Object mapValue = old.serializer(1).deserialize(new DataInputBuffer(value));
        batch.put(column(), newKey, bytesOf(requested.serializer(1), mapValue));
    }

    /**
     * Iterates the entries under {@code prefix} in batches of {@link #BATCH}. Deserializes new
     * objects; {@link Iterator#remove} is not supported (call {@link #remove} with the key).
     */
    private static final class EntryIterator<K, V, R> implements Iterator<R> {
        private final RocksDbMapState<K, V> state;
        private final byte[] prefix;
        private final Function<Map.Entry<K, V>, R> project;
        private final List<Map.Entry<K, V>> batch = new ArrayList<>(BATCH);
        private int next;
        /** The RocksDB key of the last entry read; the next batch starts after it. */
        private byte[] lastKey;
        private boolean exhausted;

        EntryIterator(RocksDbMapState<K, V> state, byte[] prefix, Function<Map.Entry<K, V>, R> project) {
            this.state = state;
            this.prefix = prefix;
            this.project = project;
        }

        @Override
        public boolean hasNext() {
            if (next < batch.size()) {
                return true;
            }
            if (exhausted) {
                return false;
            }
            fill();
            return next < batch.size();
        }

        @Override
        public R next() {
            if (!hasNext()) {
                throw new NoSuchElementException();
            }
            return project.apply(batch.get(next++));
        }

        @SuppressWarnings("unchecked")
        private void fill() {
            batch.clear();
            next = 0;
            TypeSerializer<Object> keys = state.metaInfo().serializer(0);
            TypeSerializer<Object> values = state.metaInfo().serializer(1);
            DataInputBuffer in = new DataInputBuffer();
            try (RocksIterator it = state.backend.db().newIterator(state.column(), state.backend.readOptions)) {
                if (lastKey == null) {
                    it.seek(prefix);
                } else {
                    it.seek(lastKey);
                    if (it.isValid() && Arrays.equals(it.key(), lastKey)) {
                        it.next();
                    }
                }
                while (batch.size() < BATCH && it.isValid() && RocksDbKeys.startsWith(it.key(), prefix)) {
                    byte[] k = it.key();
                    in.reset(k, prefix.length, k.length);
                    K key = (K) keys.deserialize(in);
                    byte[] v = it.value();
                    in.reset(v, 0, v.length);
                    V value = (V) values.deserialize(in);
                    batch.add(new AbstractMap.SimpleImmutableEntry<>(key, value));
                    lastKey = k;
                    it.next();
                }
                exhausted = batch.size() < BATCH;
            }
        }
    }
}
