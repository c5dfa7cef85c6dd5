package io.sluice.state.rocksdb;

import io.sluice.api.state.ValueState;
import io.sluice.state.StateMetaInfo;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * {@link ValueState} in RocksDB: one entry per key, the value written with the state's serializer.
 * Each read deserializes a new object. Task thread only.
 */
final class RocksDbValueState<T> extends RocksDbState implements ValueState<T> {

    RocksDbValueState(RocksDbKeyedStateBackend backend, ColumnFamilyHandle column, StateMetaInfo metaInfo) {
        super(backend, column, metaInfo);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T value() {
        byte[] bytes = get(currentKey());
        return bytes == null ? null : (T) read(metaInfo().serializer(0), bytes);
    }

    /** Sets the current key's value; {@code null} is the same as {@link #clear()}. */
    @Override
    public void update(T value) {
        if (value == null) {
            clear();
        } else {
            put(currentKey(), bytesOf(metaInfo().serializer(0), value));
        }
    }

    @Override
    public void clear() {
        delete(currentKey());
    }

    @Override
    void restore(RestoreBatch batch, byte[] key, Object value) {
        batch.put(column(), key, bytesOf(metaInfo().serializer(0), value));
    }

    @Override
    void migrateEntry(StateMetaInfo old, StateMetaInfo requested, byte[] key, byte[] value, WriteBatch batch)
            throws RocksDBException {
        batch.put(column(), key, bytesOf(requested.serializer(0), read(old.serializer(0), value)));
    }
}
