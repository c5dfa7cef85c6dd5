package io.sluice.state;

/**
 * The canonical layout of a keyed-state snapshot, which every keyed state backend writes
 * ({@link KeyedSnapshotWriter}) and reads ({@link KeyedSnapshotReader}): a snapshot of the heap
 * backend restores into the RocksDB backend and back, and into any other key-group range of the
 * same max parallelism (rescaling). Big-endian; {@code varint} is
 * {@link io.sluice.core.serialization.DataOutputBuffer#writeVarInt}.
 *
 * <pre>
 * int    MAGIC
 * int    VERSION
 * int    maxParallelism                 key groups are only meaningful for the same value
 * int    rangeStart, int rangeEnd       the writer's key-group range (informational)
 * serializer keySerializer              (version 2 on) see SerializerRegistry#write
 * varint stateCount
 *   per state: UTF name, UTF kind, then
 *     version 1: bytes (Java-serialized TypeSerializer[])
 *     version 2 on: varint serializerCount, serializer... (SerializerRegistry#write: stable id and version)
 * version 1, 2: varint keyGroupCount    key groups that have data, ascending, then that many groups
 * version 3:    groups until the end marker, keyGroup = -1 (so a writer need not know the count first)
 *   per key group:
 *     int keyGroup
 *     int blockLength                   so that a reader can skip groups it does not own
 *     block:
 *       varint statesInGroup
 *         per state with data: varint stateIndex, varint entryCount,
 *           per entry: key (key serializer; version 1: dynamic serializer), value (StateMetaInfo#writeValue)
 * </pre>
 *
 * <p>A value is the whole per-key value: the value of a value state, the list of a list state, the
 * map of a map state, whatever the backend's own layout (a RocksDB backend keeps one entry per map
 * entry). State with a time-to-live keeps its timestamps inside the values (its serializer is
 * {@code sluice.ttl} around the user's), so expiry survives a move between backends.
 *
 * <p>Versions: 1 recorded serializers with Java serialization, so by the Java class names of
 * anonymous classes; 2 records them by stable id and version and records the key serializer; 3 ends
 * the key groups with a marker instead of counting them first, so that a backend can stream its
 * snapshot group by group. The writer writes {@link #VERSION}; the reader reads every version up to
 * it. Bump {@link #VERSION} on any change and keep reading the older ones.
 */
public final class KeyedSnapshotFormat {
    /** "SLKS": Sluice keyed state. */
    public static final int MAGIC = 0x534C4B53;
    public static final int VERSION = 3;
    /** The key group number that ends the groups of a version-3 snapshot. */
    static final int END_OF_GROUPS = -1;

    private KeyedSnapshotFormat() {}
}
