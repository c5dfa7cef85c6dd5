package io.sluice.state.rocksdb;

import io.sluice.api.state.ListState;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.StateMetaInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * {@link ListState} in RocksDB: one entry per key holding the elements one after the other, each
 * written with the element serializer (which knows where an element ends). {@link #add} is a RocksDB
 * merge (the column family's string-append operator with an empty delimiter appends the element's
 * bytes), so adding reads nothing; {@link #get} reads the merged entry and deserializes a new list.
 * Task thread only.
 */
final class RocksDbListState<T> extends RocksDbState implements ListState<T> {

    RocksDbListState(RocksDbKeyedStateBackend backend, ColumnFamilyHandle column, StateMetaInfo metaInfo) {
        super(backend, column, metaInfo);
    }

    /** A new, read-only list of the current key's elements, in the order they were added; empty if none. */
    @Override
    public Iterable<T> get() {
        byte[] bytes = get(currentKey());
        if (bytes == null) {
            return List.of();
        }
        return Collections.unmodifiableList(elements(metaInfo().serializer(0), bytes, backend.input));
    }

    @SuppressWarnings("unchecked")
    static <T> List<T> elements(TypeSerializer<Object> serializer, byte[] bytes, DataInputBuffer in) {
        in.reset(bytes, 0, bytes.length);
        List<T> list = new ArrayList<>();
        while (in.hasRemaining()) {
            list.add((T) serializer.deserialize(in));
        }
        return list;
    }

    @Override
    public void add(T value) {
        requireElement(value);
        try {
            byte[] key = currentKey();
            byte[] element = bytesOf(metaInfo().serializer(0), value);
            backend.db().merge(column(), backend.writeOptions, key, element);
            backend.changelog().merge(index, key, element);
        } catch (RocksDBException e) {
            throw backend.failure("add to list state '" + name() + "'", e);
        }
    }

    /** Replaces the current key's list with {@code values}; null or empty clears it. */
    @Override
    public void update(List<T> values) {
        if (values == null || values.isEmpty()) {
            clear();
            return;
        }
        values.forEach(this::requireElement);
        put(currentKey(), listBytes(metaInfo().serializer(0), values));
    }

    private byte[] listBytes(TypeSerializer<Object> serializer, List<?> values) {
        DataOutputBuffer out = backend.scratch;
        out.clear();
        for (Object v : values) {
            serializer.serialize(v, out);
        }
        return Arrays.copyOf(out.array(), out.position());
    }

    @Override
    public void clear() {
        delete(currentKey());
    }

    @Override
    void restore(RestoreBatch batch, byte[] key, Object value) {
        List<?> list = (List<?>) value;
        if (!list.isEmpty()) {
            batch.put(column(), key, listBytes(metaInfo().serializer(0), list));
        }
    }

    @Override
    void migrateEntry(StateMetaInfo old, StateMetaInfo requested, byte[] key, byte[] value, WriteBatch batch)
            throws RocksDBException {
        List<Object> list = elements(old.serializer(0), value, new DataInputBuffer());
        batch.put(column(), key, listBytes(requested.serializer(0), list));
    }

    /** Each element carries its own timestamp: the expired ones are dropped, the others rewritten. */
    @Override
    int removeExpired(byte[] key, byte[] value, long cutoffMillis, WriteBatch batch) throws RocksDBException {
        List<Object> elements = elements(metaInfo().serializer(0), value, new DataInputBuffer());
        List<Object> kept = new ArrayList<>(elements.size());
        for (Object e : elements) {
            if (((io.sluice.core.serialization.TimestampedValue<?>) e).timestampMillis() > cutoffMillis) {
                kept.add(e);
            }
        }
        int removed = elements.size() - kept.size();
        if (removed > 0) {
            if (kept.isEmpty()) {
                batch.delete(column(), key);
            } else {
                batch.put(column(), key, listBytes(metaInfo().serializer(0), kept));
            }
        }
        return removed;
    }

    private void requireElement(T value) {
        Objects.requireNonNull(value, () -> "List state '" + name()
                + "' does not hold null elements; filter nulls out before adding them");
    }
}
