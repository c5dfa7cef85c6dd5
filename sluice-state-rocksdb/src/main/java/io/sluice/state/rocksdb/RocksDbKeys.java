package io.sluice.state.rocksdb;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import java.util.Arrays;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksIterator;

/**
 * The RocksDB key layout of a {@link RocksDbKeyedStateBackend} and its current key. Every RocksDB key
 * starts with the key group of the user's key, {@value #KEY_GROUP_BYTES} bytes, unsigned big-endian,
 * then the key written with the task's key serializer (a map state appends the map key's bytes); so a
 * key group's entries are contiguous and in ascending order of groups. The current key's bytes are
 * computed once when it is set, for every state access until the next key.
 *
 * <p>Threading: task thread only (the static layout helpers: any thread).
 */
final class RocksDbKeys {
    /** The bytes of the key-group prefix of every RocksDB key; max parallelism is at most 2^15. */
    static final int KEY_GROUP_BYTES = 2;

    private final KeyGroupRange range;
    private final int maxParallelism;
    private final TypeSerializer<Object> keySerializer;
    private Object currentKey;
    /** Key-group prefix and serialized current key: the RocksDB key of value and list states. */
    private byte[] currentKeyBytes;
    private final DataOutputBuffer keyBuffer = new DataOutputBuffer(64);

    RocksDbKeys(KeyGroupRange range, int maxParallelism, TypeSerializer<Object> keySerializer) {
        if (range.size() > 0 && (range.start() < 0 || range.end() >= maxParallelism)) {
            throw new IllegalArgumentException("Key-group range " + range + " is not within [0, " + (maxParallelism - 1)
                    + "], the key groups of max parallelism " + maxParallelism);
        }
        if (maxParallelism > (1 << (8 * KEY_GROUP_BYTES - 1))) {
            throw new IllegalArgumentException("Max parallelism " + maxParallelism + " exceeds the RocksDB backend's"
                    + " limit of " + (1 << (8 * KEY_GROUP_BYTES - 1)));
        }
        this.range = range;
        this.maxParallelism = maxParallelism;
        this.keySerializer = keySerializer;
    }

    /** Sets the current key: checks that its key group is this backend's and computes its bytes. */
    void setCurrentKey(Object key) {
        if (key == currentKey && key != null) {
            return;
        }
        int keyGroup = KeyGroups.keyGroupFor(key, maxParallelism);
        if (!range.contains(keyGroup)) {
            throw new IllegalStateException("Key " + key + " belongs to key group " + keyGroup
                    + ", outside this subtask's key groups " + range + ": the record was routed to the wrong"
                    + " subtask. Partition the stream with KeyGroups and the same max parallelism ("
                    + maxParallelism + "), and make sure the key's hashCode is deterministic");
        }
        currentKeyBytes = keyBytes(keyGroup, key);
        currentKey = key;
    }

    Object currentKey() {
        return currentKey;
    }

    /** The RocksDB key of the current key; fails if no key was set. */
    byte[] currentKeyBytes(String stateName) {
        if (currentKeyBytes == null) {
            throw new IllegalStateException("State '" + stateName + "' was accessed with no current key:"
                    + " keyed state can only be used while processing a record of a keyed stream");
        }
        return currentKeyBytes;
    }

    /** The RocksDB key prefix of {@code key} in {@code keyGroup}: group, then the key's bytes. */
    byte[] keyBytes(int keyGroup, Object key) {
        keyBuffer.clear();
        keyBuffer.writeShort(keyGroup);
        try {
            keySerializer.serialize(key, keyBuffer);
        } catch (RuntimeException e) {
            throw new SerializationException("Cannot write key " + key + " of type " + key.getClass().getName()
                    + " with key serializer " + keySerializer.typeName() + " (" + e.getMessage() + "): declare a"
                    + " serializer for the key type with keyBy(selector, TypeSerializer)", e);
        }
        return Arrays.copyOf(keyBuffer.array(), keyBuffer.position());
    }

    TypeSerializer<Object> keySerializer() {
        return keySerializer;
    }

    interface KeyVisitor {
        void visit(int keyGroup, Object key);
    }

    /** Calls {@code visitor} once per key of {@code column} in {@code db}, in RocksDB order. */
    void forEachKey(RocksDB db, ColumnFamilyHandle column, ReadOptions options, KeyVisitor visitor) {
        DataInputBuffer in = new DataInputBuffer();
        byte[] previousPrefix = null;
        try (RocksIterator it = db.newIterator(column, options)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (previousPrefix != null && startsWith(k, previousPrefix)) {
                    continue; // another map entry of the same key
                }
                in.reset(k, KEY_GROUP_BYTES, k.length);
                Object key = keySerializer.deserialize(in);
                previousPrefix = Arrays.copyOf(k, in.position());
                visitor.visit(keyGroupOf(k), key);
            }
        }
    }

    static int keyGroupOf(byte[] key) {
        return ((key[0] & 0xFF) << 8) | (key[1] & 0xFF);
    }

    static boolean startsWith(byte[] bytes, byte[] prefix) {
        if (bytes.length < prefix.length) {
            return false;
        }
        return Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    /** The two key-group bytes that start every key of {@code keyGroup} (also just after the last group). */
    static byte[] groupPrefix(int keyGroup) {
        return new byte[] {(byte) (keyGroup >>> 8), (byte) keyGroup};
    }
}
