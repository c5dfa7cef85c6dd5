package io.sluice.state;

/**
 * The layout of a keyed-state snapshot, shared by {@link HeapKeyedStateSnapshot} (writer) and
 * {@link KeyedSnapshotReader} (reader). Big-endian; {@code varint} is
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
 *     version 2: varint serializerCount, serializer... (SerializerRegistry#write: stable id and version)
 * varint keyGroupCount                  key groups that have data, ascending
 *   per key group:
 *     int keyGroup
 *     int blockLength                   so that a reader can skip groups it does not own
 *     block:
 *       varint statesInGroup
 *         per state with data: varint stateIndex, varint entryCount,
 *           per entry: key (key serializer; version 1: dynamic serializer), value (StateMetaInfo#writeValue)
 * </pre>
 *
 * <p>Versions: 1 recorded serializers with Java serialization, so by the Java class names of
 * anonymous classes; 2 records them by stable id and version and records the key serializer. The
 * writer writes {@link #VERSION}; the reader reads every version up to it. Bump {@link #VERSION}
 * on any change and keep reading the older ones.
 */
final class KeyedSnapshotFormat {
    /** "SLKS": Sluice keyed state. */
    static final int MAGIC = 0x534C4B53;
    static final int VERSION = 2;

    private KeyedSnapshotFormat() {}
}
