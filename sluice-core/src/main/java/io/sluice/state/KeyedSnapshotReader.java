package io.sluice.state;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.SerializerRegistry;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.util.BitSet;

/**
 * Reads snapshots in the canonical {@link KeyedSnapshotFormat} into any backend's states (a
 * {@link Target}), keeping only the key groups of the restoring backend's range and skipping the
 * others without decoding them. One reader is used for all snapshots of one restore, so that it can
 * tell when two snapshots both hold data for the same key group. Every key is checked to belong to
 * the group it was written in.
 *
 * <p>Threading: task thread only, like the backend it restores.
 */
public final class KeyedSnapshotReader {
    /** Where a restore puts what it reads: the restoring backend. */
    public interface Target {
        /**
         * Registers (or finds, when an earlier snapshot of this restore declared it) the state a
         * snapshot declares, with the snapshot's serializers.
         */
        RestoredState state(StateMetaInfo metaInfo);
    }

    /** One state of the restoring backend. */
    public interface RestoredState {
        /**
         * Stores one key's value as {@link StateMetaInfo#readValue} read it (a list or map for list
         * and map states), for a key of {@code keyGroup}.
         */
        void restore(int keyGroup, Object key, Object value);
    }

    /** The key serializer of snapshots of format version 1, which did not record it. */
    private static final TypeSerializer<Object> VERSION_1_KEY_SERIALIZER = Serializers.dynamic();

    private final KeyGroupRange range;
    private final int maxParallelism;
    /** Registers (or finds) the state a snapshot describes. */
    private final Target target;
    private final BitSet restoredKeyGroups = new BitSet();

    public KeyedSnapshotReader(KeyGroupRange range, int maxParallelism, Target target) {
        this.range = range;
        this.maxParallelism = maxParallelism;
        this.target = target;
    }

    /**
     * Reads one whole snapshot; {@code index} names it in error messages. Wraps what makes it
     * undecodable in an {@link UnreadableSnapshotException} naming {@code index}; throws an
     * {@link IllegalStateException} for a snapshot of another max parallelism, with keys in the
     * wrong group, or overlapping an earlier snapshot of this restore.
     */
    public void readSnapshot(DataInputBuffer in, int index) {
        try {
            read(in, index);
        } catch (UnreadableSnapshotException | IllegalStateException e) {
            throw e;
        } catch (SerializationException | IndexOutOfBoundsException | NegativeArraySizeException
                 | ClassCastException | OutOfMemoryError e) {
            throw new UnreadableSnapshotException(index, e instanceof OutOfMemoryError
                    ? new SerializationException("a length in it is absurd (" + e.getMessage() + ")") : (RuntimeException) e);
        }
    }

    private void read(DataInputBuffer in, int index) {
        String which = "Keyed-state snapshot #" + index;
        int magic = in.readInt();
        if (magic != KeyedSnapshotFormat.MAGIC) {
            throw new SerializationException(which + " does not start with the keyed-state snapshot marker (found 0x"
                    + Integer.toHexString(magic) + "): it is not a keyed-state snapshot, or it is corrupt");
        }
        int version = in.readInt();
        if (version < 1 || version > KeyedSnapshotFormat.VERSION) {
            throw new SerializationException(which + " has format version " + version + ", but this Sluice reads"
                    + " versions 1 to " + KeyedSnapshotFormat.VERSION + ": restore it with the Sluice version that"
                    + " wrote it, or start the job without this checkpoint");
        }
        int snapshotMaxParallelism = in.readInt();
        if (snapshotMaxParallelism != maxParallelism) {
            throw new io.sluice.api.errors.MaxParallelismMismatchException(which + " was written with max parallelism "
                    + snapshotMaxParallelism + ", but this job has max parallelism " + maxParallelism
                    + ": keys map to different key groups, so the state cannot be restored. Set the max parallelism"
                    + " back to " + snapshotMaxParallelism + " (pipeline.max-parallelism or setMaxParallelism)",
                    snapshotMaxParallelism, maxParallelism);
        }
        in.readInt(); // writer's range start, informational
        in.readInt(); // writer's range end, informational
        ClassLoader classLoader = classLoader();
        TypeSerializer<Object> keySerializer = version == 1 ? VERSION_1_KEY_SERIALIZER : readKeySerializer(in, which, classLoader);

        int stateCount = in.readVarInt();
        RestoredState[] states = new RestoredState[stateCount];
        StateMetaInfo[] metaInfos = new StateMetaInfo[stateCount];
        for (int s = 0; s < stateCount; s++) {
            metaInfos[s] = StateMetaInfo.readFrom(in, version, classLoader);
            states[s] = target.state(metaInfos[s]);
        }

        int groupCount = version < 3 ? in.readVarInt() : Integer.MAX_VALUE;
        int previousGroup = -1;
        for (int i = 0; i < groupCount; i++) {
            int keyGroup = in.readInt();
            if (version >= 3 && keyGroup == KeyedSnapshotFormat.END_OF_GROUPS) {
                break;
            }
            if (keyGroup <= previousGroup || keyGroup >= maxParallelism) {
                throw new SerializationException(which + " holds key group " + keyGroup + " after key group "
                        + previousGroup + " (of " + maxParallelism + "): it is corrupt");
            }
            previousGroup = keyGroup;
            int blockLength = in.readInt();
            if (blockLength < 0 || blockLength > in.remaining()) {
                throw new SerializationException(which + ": key group " + keyGroup + " claims " + blockLength
                        + " bytes, but " + in.remaining() + " remain: it is truncated or corrupt");
            }
            if (!range.contains(keyGroup)) {
                in.position(in.position() + blockLength);
                continue;
            }
            if (restoredKeyGroups.get(keyGroup)) {
                throw new IllegalStateException(which + " holds key group " + keyGroup + ", which an earlier snapshot"
                        + " of this restore also held: the snapshots passed to restore overlap. Pass the snapshots"
                        + " of one checkpoint only, each once");
            }
            restoredKeyGroups.set(keyGroup);
            int blockEnd = in.position() + blockLength;
            readBlock(in, keyGroup, keySerializer, states, metaInfos, which);
            if (in.position() != blockEnd) {
                throw new SerializationException(which + ": key group " + keyGroup + " should end at position "
                        + blockEnd + " but reading stopped at " + in.position()
                        + ": a state serializer reads differently from how it wrote");
            }
        }
        if (in.hasRemaining()) {
            throw new SerializationException(which + " has " + in.remaining()
                    + " unexpected bytes after its last key group: it is corrupt");
        }
    }

    private static TypeSerializer<Object> readKeySerializer(DataInputBuffer in, String which, ClassLoader classLoader) {
        try {
            return SerializerRegistry.read(in, classLoader);
        } catch (SerializationException e) {
            throw new SerializationException(which + ": its key serializer cannot be read: " + e.getMessage(), e);
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader cl = Thread.currentThread().getContextClassLoader();
        return cl != null ? cl : KeyedSnapshotReader.class.getClassLoader();
    }

    private void readBlock(DataInputBuffer in, int keyGroup, TypeSerializer<Object> keySerializer,
            RestoredState[] states, StateMetaInfo[] metaInfos, String which) {
        int statesInGroup = in.readVarInt();
        for (int j = 0; j < statesInGroup; j++) {
            int s = in.readVarInt();
            if (s >= states.length) {
                throw new SerializationException(which + ": key group " + keyGroup + " refers to state #" + s
                        + " but the snapshot declares only " + states.length + ": it is corrupt");
            }
            int entries = in.readVarInt();
            for (int e = 0; e < entries; e++) {
                Object key = keySerializer.deserialize(in);
                int actualGroup = KeyGroups.keyGroupFor(key, maxParallelism);
                if (actualGroup != keyGroup) {
                    throw new IllegalStateException(which + ": key " + key + " of state '" + metaInfos[s].name()
                            + "' was written in key group " + keyGroup + " but belongs to key group " + actualGroup
                            + " here: the snapshot was written by a Sluice (or job) whose hash of this key differs from"
                            + " this one's, so this state can never be restored by this job as it is. Restore it with the"
                            + " Sluice version and job jar that wrote it, or start the job without this checkpoint (no"
                            + " --restore-from; the state is lost); see \"Key groups and stable hashes\" in"
                            + " docs/architecture.md");
                }
                states[s].restore(keyGroup, key, metaInfos[s].readValue(in));
            }
        }
    }
}
