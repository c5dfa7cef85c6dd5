package io.sluice.state;

import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
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
    public void writeTo(KeyedSnapshotOutput out) {
        KeyedSnapshotWriter writer = new KeyedSnapshotWriter(out, maxParallelism, range, keySerializer, metaInfos);
        KeyGroupPartition[] partitions = new KeyGroupPartition[tables.size()];
        for (int s = 0; s < partitions.length; s++) {
            partitions[s] = KeyGroupPartition.of(tables.get(s), range, maxParallelism);
        }
        for (int g = range.start(); g <= range.end(); g++) {
            writer.startGroup(g);
            for (int s = 0; s < partitions.length; s++) {
                KeyGroupPartition p = partitions[s];
                StateMetaInfo metaInfo = metaInfos.get(s);
                DataOutputBuffer entries = writer.entries(s);
                for (int i = p.start(g), end = p.end(g); i < end; i++) {
                    serializeKey(p.keys[i], entries);
                    metaInfo.writeValue(p.values[i], entries);
                    writer.entryWritten(s);
                }
            }
            writer.finishGroup();
        }
        writer.finish();
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
}
