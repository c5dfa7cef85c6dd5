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
 * varint stateCount
 *   per state: UTF name, UTF kind, bytes (Java-serialized TypeSerializer[]), see StateMetaInfo
 * varint keyGroupCount                  key groups that have data, ascending
 *   per key group:
 *     int keyGroup
 *     int blockLength                   so that a reader can skip groups it does not own
 *     block:
 *       varint statesInGroup
 *         per state with data: varint stateIndex, varint entryCount,
 *           per entry: key (dynamic serializer), value (StateMetaInfo#writeValue)
 * </pre>
 *
 * <p>Bump {@link #VERSION} on any change; the reader refuses versions it does not know.
 */
final class KeyedSnapshotFormat {
    /** "SLKS": Sluice keyed state. */
    static final int MAGIC = 0x534C4B53;
    static final int VERSION = 1;

    private KeyedSnapshotFormat() {}
}
