package io.sluice.state.rocksdb;

import io.sluice.api.state.StateDescriptor.Kind;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedSnapshotOutput;
import io.sluice.state.KeyedSnapshotWriter;
import io.sluice.state.KeyedStateSnapshot;
import io.sluice.state.StateMetaInfo;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;

/**
 * A full snapshot of a {@link RocksDbKeyedStateBackend} in the canonical format: a RocksDB snapshot
 * (taken on the task thread, instantly) read on the I/O thread with one iterator per state, key group
 * by key group, while the task goes on changing its state. Keys and values are copied as the bytes
 * RocksDB holds wherever the canonical layout has the same bytes (keys, values of value states, map
 * keys and values); a list's elements are decoded only to count them, and a map's entries of one key
 * are gathered into one canonical map.
 *
 * <p>Threading: created on the task thread; {@link #writeTo} runs once on any one thread. It holds
 * the instance open while it runs (the backend's close waits for it, and it stops with an error when
 * the backend closes); the RocksDB snapshot is released when it ends, or by the backend's close if it
 * never runs.
 */
final class RocksDbFullSnapshot implements KeyedStateSnapshot {
    /** How often (entries) the writer looks whether the backend is closing. */
    private static final int CLOSE_CHECK_INTERVAL = 1024;

    private final RocksDbInstance instance;
    private final Snapshot snapshot;
    private final KeyGroupRange range;
    private final int maxParallelism;
    private final TypeSerializer<Object> keySerializer;
    private final List<StateMetaInfo> metaInfos;
    private final List<ColumnFamilyHandle> columns;

    RocksDbFullSnapshot(RocksDbInstance instance, Snapshot snapshot, KeyGroupRange range, int maxParallelism,
                        TypeSerializer<Object> keySerializer, List<StateMetaInfo> metaInfos,
                        List<ColumnFamilyHandle> columns) {
        this.instance = instance;
        this.snapshot = snapshot;
        this.range = range;
        this.maxParallelism = maxParallelism;
        this.keySerializer = keySerializer;
        this.metaInfos = List.copyOf(metaInfos);
        this.columns = List.copyOf(columns);
    }

    @Override
    public void writeTo(KeyedSnapshotOutput out) {
        if (!instance.enter()) {
            throw closed();
        }
        try (ReadOptions options = new ReadOptions().setSnapshot(snapshot).setFillCache(false)) {
            write(out, options);
        } finally {
            instance.releaseSnapshot(snapshot);
            instance.exit();
        }
    }

    private IllegalStateException closed() {
        return new IllegalStateException("The RocksDB state of " + instance.owner() + " was closed while its snapshot"
                + " was being written (the task ended)");
    }

    private void write(KeyedSnapshotOutput out, ReadOptions options) {
        write(out, instance.db(), columns, options, range, maxParallelism, keySerializer, metaInfos, () -> {
            if (instance.closing()) {
                throw closed();
            }
        });
    }

    /**
     * Writes the canonical snapshot of {@code db}'s {@code columns} (one per state of {@code metaInfos},
     * in that order), the key groups of {@code range}; runs {@code checkClosing} every
     * {@value #CLOSE_CHECK_INTERVAL} entries (it throws to stop).
     */
    static void write(KeyedSnapshotOutput out, org.rocksdb.RocksDB db, List<ColumnFamilyHandle> columns,
                      ReadOptions options, KeyGroupRange range, int maxParallelism, TypeSerializer<Object> keySerializer,
                      List<StateMetaInfo> metaInfos, Runnable checkClosing) {
        KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, maxParallelism, range, keySerializer, metaInfos);
        RocksIterator[] iterators = new RocksIterator[columns.size()];
        try {
            for (int s = 0; s < iterators.length; s++) {
                iterators[s] = db.newIterator(columns.get(s), options);
                iterators[s].seekToFirst();
            }
            DataInputBuffer in = new DataInputBuffer();
            long entries = 0;
            for (int g = range.start(); g <= range.end(); g++) {
                writer.startGroup(g);
                for (int s = 0; s < iterators.length; s++) {
                    entries += writeGroupOfState(writer, metaInfos.get(s), keySerializer, s, g, iterators[s], in);
                    if (entries >= CLOSE_CHECK_INTERVAL) {
                        entries = 0;
                        checkClosing.run();
                    }
                }
                writer.finishGroup();
            }
            writer.finish();
        } finally {
            for (RocksIterator it : iterators) {
                if (it != null) {
                    it.close();
                }
            }
        }
    }

    /** Writes the entries of {@code keyGroup} of state {@code s} from {@code it} (positioned at them); their count. */
    private static long writeGroupOfState(KeyedSnapshotWriter writer, StateMetaInfo info,
                                          TypeSerializer<Object> keySerializer, int s, int keyGroup, RocksIterator it,
                                          DataInputBuffer in) {
        DataOutputBuffer entries = writer.entries(s);
        long n = 0;
        while (it.isValid()) {
            byte[] key = it.key();
            int group = RocksDbKeys.keyGroupOf(key);
            if (group < keyGroup) {
                it.next(); // outside this backend's range (cannot happen: keys are checked when set)
                continue;
            }
            if (group > keyGroup) {
                break;
            }
            in.reset(key, RocksDbKeys.KEY_GROUP_BYTES, key.length);
            keySerializer.deserialize(in); // finds where the key ends
            int keyEnd = in.position();
            entries.write(key, RocksDbKeys.KEY_GROUP_BYTES, keyEnd - RocksDbKeys.KEY_GROUP_BYTES);
            if (info.kind() == Kind.MAP) {
                n += writeMap(entries, it, key, keyEnd);
            } else {
                byte[] value = it.value();
                if (info.kind() == Kind.LIST) {
                    entries.writeVarInt(countElements(info.serializer(0), value, in));
                }
                entries.write(value);
                it.next();
                n++;
            }
            writer.entryWritten(s);
        }
        return n;
    }

    /** Gathers the map entries of one key (those whose RocksDB key starts with {@code key[0, keyEnd)}) into one canonical map. */
    private static long writeMap(DataOutputBuffer entries, RocksIterator it, byte[] first, int keyEnd) {
        DataOutputBuffer map = new DataOutputBuffer(256);
        int count = 0;
        while (it.isValid()) {
            byte[] k = it.key();
            if (k.length < keyEnd || !java.util.Arrays.equals(k, 0, keyEnd, first, 0, keyEnd)) {
                break;
            }
            map.write(k, keyEnd, k.length - keyEnd);
            map.write(it.value());
            count++;
            it.next();
        }
        entries.writeVarInt(count);
        entries.write(map.array(), 0, map.position());
        return count;
    }

    private static int countElements(TypeSerializer<Object> serializer, byte[] value, DataInputBuffer in) {
        in.reset(value, 0, value.length);
        int n = 0;
        while (in.hasRemaining()) {
            serializer.deserialize(in);
            n++;
        }
        return n;
    }
}
