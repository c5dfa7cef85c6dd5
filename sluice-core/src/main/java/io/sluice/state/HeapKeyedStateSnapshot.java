package io.sluice.state;

import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.SerializerRegistry;
import io.sluice.core.serialization.TypeSerializer;
import java.util.List;
import java.util.Map;

/**
 * A copy of a {@link HeapKeyedStateBackend}'s state, taken by {@link HeapKeyedStateBackend#snapshot()}
 * and written in the key-group-organised {@link KeyedSnapshotFormat} by {@link #writeTo}.
 *
 * <p>Threading: created on the task thread; {@link #writeTo} may then run on any one thread (the
 * hand-over, such as submitting to an executor, provides the happens-before). Nothing in the
 * copied tables is shared with the backend except the (immutable) keys and immutable values, so
 * the task may go on changing its state meanwhile. {@code writeTo} may be called more than once.
 */
final class HeapKeyedStateSnapshot implements KeyedStateSnapshot {
    private final KeyGroupRange range;
    private final TypeSerializer<Object> keySerializer;
    private final int maxParallelism;
    private final List<StateMetaInfo> metaInfos;
    private final List<Map<Object, Object>> tables;

    HeapKeyedStateSnapshot(KeyGroupRange range, int maxParallelism, TypeSerializer<Object> keySerializer,
            List<StateMetaInfo> metaInfos, List<Map<Object, Object>> tables) {
        this.range = range;
        this.keySerializer = keySerializer;
        this.maxParallelism = maxParallelism;
        this.metaInfos = List.copyOf(metaInfos);
        this.tables = List.copyOf(tables);
    }

    @Override
    public void writeTo(DataOutputBuffer out) {
        out.writeInt(KeyedSnapshotFormat.MAGIC);
        out.writeInt(KeyedSnapshotFormat.VERSION);
        out.writeInt(maxParallelism);
        out.writeInt(range.start());
        out.writeInt(range.end());
        SerializerRegistry.write(keySerializer, out);
        out.writeVarInt(metaInfos.size());
        for (StateMetaInfo metaInfo : metaInfos) {
            metaInfo.writeTo(out);
        }

        KeyGroupPartition[] partitions = new KeyGroupPartition[tables.size()];
        for (int s = 0; s < partitions.length; s++) {
            partitions[s] = KeyGroupPartition.of(tables.get(s), range, maxParallelism);
        }
        int groupsWithData = 0;
        for (int g = range.start(); g <= range.end(); g++) {
            if (statesWithData(partitions, g) > 0) {
                groupsWithData++;
            }
        }
        out.writeVarInt(groupsWithData);

        DataOutputBuffer block = new DataOutputBuffer(4096);
        for (int g = range.start(); g <= range.end(); g++) {
            int states = statesWithData(partitions, g);
            if (states == 0) {
                continue;
            }
            block.clear();
            writeBlock(partitions, g, states, block);
            out.writeInt(g);
            out.writeInt(block.position());
            out.write(block.array(), 0, block.position());
        }
    }

    private void writeBlock(KeyGroupPartition[] partitions, int keyGroup, int states, DataOutputBuffer block) {
        block.writeVarInt(states);
        for (int s = 0; s < partitions.length; s++) {
            KeyGroupPartition p = partitions[s];
            if (p.count(keyGroup) == 0) {
                continue;
            }
            StateMetaInfo metaInfo = metaInfos.get(s);
            block.writeVarInt(s);
            block.writeVarInt(p.count(keyGroup));
            for (int i = p.start(keyGroup), end = p.end(keyGroup); i < end; i++) {
                serializeKey(p.keys[i], block);
                metaInfo.writeValue(p.values[i], block);
            }
        }
    }

    private void serializeKey(Object key, DataOutputBuffer block) {
        try {
            keySerializer.serialize(key, block);
        } catch (RuntimeException e) {
            throw new SerializationException("Cannot write key " + key + " of type " + key.getClass().getName()
                    + " with key serializer " + keySerializer.typeName() + " (" + e.getMessage() + "): declare a"
                    + " serializer for the key type with keyBy(selector, TypeSerializer)", e);
        }
    }

    private static int statesWithData(KeyGroupPartition[] partitions, int keyGroup) {
        int n = 0;
        for (KeyGroupPartition p : partitions) {
            if (p.count(keyGroup) > 0) {
                n++;
            }
        }
        return n;
    }
}
