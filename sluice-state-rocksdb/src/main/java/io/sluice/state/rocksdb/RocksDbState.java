package io.sluice.state.rocksdb;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.StateMetaInfo;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

/**
 * One registered state of a {@link RocksDbKeyedStateBackend}: its column family and its serializers,
 * and the conversions between the canonical per-key value of snapshots and its RocksDB entries.
 *
 * <p>Threading: task thread only, like the backend.
 */
abstract sealed class RocksDbState permits RocksDbValueState, RocksDbListState, RocksDbMapState {
    final RocksDbKeyedStateBackend backend;
    private final ColumnFamilyHandle column;
    private StateMetaInfo metaInfo;
    /** This state's place in registration order (the changelog's state number); set once by {@link RocksDbStates}. */
    int index = -1;

    RocksDbState(RocksDbKeyedStateBackend backend, ColumnFamilyHandle column, StateMetaInfo metaInfo) {
        this.backend = backend;
        this.column = column;
        this.metaInfo = metaInfo;
    }

    final ColumnFamilyHandle column() {
        return column;
    }

    final StateMetaInfo metaInfo() {
        return metaInfo;
    }

    /** Switches to the serializers of a newer descriptor (after {@link #migrateTo} if they write otherwise). */
    final void metaInfo(StateMetaInfo newMetaInfo) {
        this.metaInfo = newMetaInfo;
    }

    final String name() {
        return metaInfo.name();
    }

    /** The RocksDB key of the current key. */
    final byte[] currentKey() {
        return backend.currentKeyBytes(metaInfo.name());
    }

    /** {@code value} written with {@code serializer}, as a new array. */
    final byte[] bytesOf(TypeSerializer<Object> serializer, Object value) {
        DataOutputBuffer out = backend.scratch;
        out.clear();
        serializer.serialize(value, out);
        return Arrays.copyOf(out.array(), out.position());
    }

    /** Reads one value with {@code serializer} from {@code bytes}. */
    final Object read(TypeSerializer<Object> serializer, byte[] bytes) {
        DataInputBuffer in = backend.input;
        in.reset(bytes, 0, bytes.length);
        return serializer.deserialize(in);
    }

    final byte[] get(byte[] key) {
        try {
            return backend.db().get(column, backend.readOptions, key);
        } catch (RocksDBException e) {
            throw backend.failure("read state '" + name() + "'", e);
        }
    }

    final void put(byte[] key, byte[] value) {
        try {
            backend.db().put(column, backend.writeOptions, key, value);
            backend.changelog().put(index, key, value);
        } catch (RocksDBException e) {
            throw backend.failure("write state '" + name() + "'", e);
        }
    }

    final void delete(byte[] key) {
        try {
            backend.db().delete(column, backend.writeOptions, key);
            backend.changelog().delete(index, key);
        } catch (RocksDBException e) {
            throw backend.failure("delete from state '" + name() + "'", e);
        }
    }

    /** The background clean-up's cursor: the RocksDB key it looked at last; {@code null}: from the start. */
    private byte[] cleanupCursor;

    /**
     * The background clean-up of a state with a time-to-live (values, list elements or map values
     * written by {@code sluice.ttl}: the timestamp first): looks at up to {@code entries} RocksDB
     * entries after the previous call's last one (from the start after the end) and removes the
     * values stamped at or before {@code cutoffMillis}, in one write batch.
     *
     * @return the values removed
     */
    final int removeExpired(int entries, long cutoffMillis) {
        int removed = 0;
        try (RocksIterator it = backend.db().newIterator(column, backend.readOptions);
             WriteBatch batch = new WriteBatch()) {
            if (cleanupCursor == null) {
                it.seekToFirst();
            } else {
                it.seek(cleanupCursor);
                if (it.isValid() && Arrays.equals(it.key(), cleanupCursor)) {
                    it.next();
                }
            }
            for (int seen = 0; seen < entries && it.isValid(); seen++, it.next()) {
                byte[] key = it.key();
                removed += removeExpired(key, it.value(), cutoffMillis, batch);
                cleanupCursor = key;
            }
            if (!it.isValid()) {
                cleanupCursor = null; // the next step starts over
            }
            if (batch.count() > 0) {
                backend.write(batch);
            }
        } catch (RocksDBException e) {
            throw backend.failure("remove expired values of state '" + name() + "'", e);
        }
        return removed;
    }

    /** Removes (into {@code batch}) what of one entry is stamped at or before {@code cutoffMillis}; how many values. */
    int removeExpired(byte[] key, byte[] value, long cutoffMillis, WriteBatch batch) throws RocksDBException {
        if (timestampOf(value) <= cutoffMillis) {
            batch.delete(column, key);
            return 1;
        }
        return 0;
    }

    /** The timestamp a {@code sluice.ttl} serializer writes first: 8 bytes, big-endian. */
    static long timestampOf(byte[] value) {
        long t = 0;
        for (int i = 0; i < 8; i++) {
            t = (t << 8) | (value[i] & 0xFF);
        }
        return t;
    }

    /**
     * Stores one key's value read from a canonical snapshot ({@link StateMetaInfo#readValue}: the
     * value, a list or a map), written with this state's current serializers.
     */
    abstract void restore(RestoreBatch batch, byte[] key, Object value);

    /**
     * Rewrites every entry, read with this state's serializers, with those of {@code requested}
     * ({@link io.sluice.state.StateRegistration.Outcome#MIGRATE}); a value they cannot write fails,
     * naming the state.
     */
    final void migrateTo(StateMetaInfo requested) {
        StateMetaInfo old = metaInfo;
        long migrated = 0;
        try (RocksIterator it = backend.db().newIterator(column, backend.readOptions);
             WriteBatch batch = new WriteBatch()) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                migrateEntry(old, requested, it.key(), it.value(), batch);
                migrated++;
                if (batch.getDataSize() >= (4 << 20)) {
                    backend.write(batch);
                    batch.clear();
                }
            }
            backend.write(batch);
        } catch (RocksDBException e) {
            throw backend.failure("migrate state '" + name() + "' to its new serializers", e);
        } catch (RuntimeException e) {
            throw new SerializationException("State '" + name() + "' of " + backend.owner() + " cannot be rewritten"
                    + " with the serializers the job now declares (" + e + "): the values it holds are not of the"
                    + " declared type. Restore with the job version that wrote it, or give the state a new name", e);
        }
        org.slf4j.LoggerFactory.getLogger(RocksDbState.class).info("Migrated {} entries of state '{}' of {} to its"
                + " newly declared serializers", migrated, name(), backend.owner());
    }

    /** Rewrites one RocksDB entry read with {@code old} with {@code requested}'s serializers into {@code batch}. */
    abstract void migrateEntry(StateMetaInfo old, StateMetaInfo requested, byte[] key, byte[] value, WriteBatch batch)
            throws RocksDBException;
}
