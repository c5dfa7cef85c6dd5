package io.sluice.state;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.SerializerRegistry;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.BitSet;

/**
 * Reads snapshots in the canonical {@link KeyedSnapshotFormat} into any backend's states (a
 * {@link Target}), keeping only the key groups of the restoring backend's range and skipping the
 * others without decoding them. One reader is used for all snapshots of one restore, so that it can
 * tell when two snapshots both hold data for the same key group. Every key is checked to belong to
 * the group it was written in. A snapshot is read as a stream ({@link KeyedSnapshotInput}), one key
 * group's block in memory at a time, so restoring a snapshot larger than the heap works.
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

    /** How much of a snapshot's start is decoded as its header first (doubled while the header does not fit). */
    static final int HEADER_PREFIX_BYTES = 64 * 1024;
    /** Above this, a header that still does not decode is corrupt (it holds serializer and state descriptions). */
    static final int MAX_HEADER_BYTES = 64 * 1024 * 1024;

    /** The snapshot's marker or format version is wrong: reading more of it cannot help. */
    private static final class CorruptHeaderException extends SerializationException {
        CorruptHeaderException(String message) {
            super(message);
        }
    }

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
     * Reads one whole snapshot in memory; {@code index} names it in error messages. See
     * {@link #readSnapshot(KeyedSnapshotInput, int)}.
     */
    public void readSnapshot(DataInputBuffer in, int index) {
        readSnapshot(KeyedSnapshotInput.of(in), index);
    }

    /**
     * Reads one whole snapshot as a stream, one key group's block in memory at a time; {@code index}
     * names it in error messages. Wraps what makes it undecodable (also a truncation) in an
     * {@link UnreadableSnapshotException} naming {@code index}; throws an {@link IllegalStateException}
     * for a snapshot of another max parallelism, with keys in the wrong group, or overlapping an earlier
     * snapshot of this restore; an {@link UncheckedIOException} when the stream fails to read; and lets
     * what the stream itself throws unchecked (a checksum mismatch found at its end) pass.
     */
    public void readSnapshot(KeyedSnapshotInput input, int index) {
        try (InputStream stream = input.open()) {
            read(new SnapshotStream(stream, input.length()), index);
        } catch (EOFException e) {
            throw new UnreadableSnapshotException(index, new SerializationException("Keyed-state snapshot #" + index
                    + " ends in the middle of its data: it is truncated", e));
        } catch (IOException e) {
            throw new UncheckedIOException("Keyed-state snapshot #" + index + " could not be read: " + e.getMessage(), e);
        } catch (UnreadableSnapshotException | IllegalStateException e) {
            throw e;
        } catch (SerializationException | IndexOutOfBoundsException | NegativeArraySizeException
                 | ClassCastException | OutOfMemoryError e) {
            throw new UnreadableSnapshotException(index, e instanceof OutOfMemoryError
                    ? new SerializationException("a length in it is absurd (" + e.getMessage() + ")") : (RuntimeException) e);
        }
    }

    /** The snapshot's header: everything before the first key group's block. */
    private record Header(int version, TypeSerializer<Object> keySerializer, StateMetaInfo[] metaInfos, int groupCount) {
    }

    private void read(SnapshotStream in, int index) throws IOException {
        // header, then blocks "group, length, bytes" until the end marker (or, before version 3, a count)
        String which = "Keyed-state snapshot #" + index;
        Header header = readHeader(in, which);
        int version = header.version();
        StateMetaInfo[] metaInfos = header.metaInfos();
        RestoredState[] states = new RestoredState[metaInfos.length];
        for (int s = 0; s < metaInfos.length; s++) {
            states[s] = target.state(metaInfos[s]);
        }
        DataInputBuffer blockIn = new DataInputBuffer();
        byte[] block = new byte[0];
        int previousGroup = -1;
        for (int i = 0; i < header.groupCount(); i++) {
            int keyGroup = in.data().readInt();
            if (version >= 3 && keyGroup == KeyedSnapshotFormat.END_OF_GROUPS) {
                break;
            }
            if (keyGroup <= previousGroup || keyGroup >= maxParallelism) {
                throw new SerializationException(which + " holds key group " + keyGroup + " after key group "
                        + previousGroup + " (of " + maxParallelism + "): it is corrupt");
            }
            previousGroup = keyGroup;
            int blockLength = in.data().readInt();
            long remaining = in.remaining();
            if (blockLength < 0 || (remaining >= 0 && blockLength > remaining)) {
                throw new SerializationException(which + ": key group " + keyGroup + " claims " + blockLength
                        + " bytes, but " + (remaining >= 0 ? remaining : "fewer") + " remain: it is truncated or corrupt");
            }
            if (!range.contains(keyGroup)) {
                in.data().skipNBytes(blockLength);
                continue;
            }
            if (restoredKeyGroups.get(keyGroup)) {
                throw new IllegalStateException(which + " holds key group " + keyGroup + ", which an earlier snapshot"
                        + " of this restore also held: the snapshots passed to restore overlap. Pass the snapshots"
                        + " of one checkpoint only, each once");
            }
            restoredKeyGroups.set(keyGroup);
            if (block.length < blockLength) {
                block = new byte[Math.max(blockLength, Math.min(2 * block.length, Integer.MAX_VALUE - 8))];
            }
            in.data().readFully(block, 0, blockLength);
            blockIn.reset(block, 0, blockLength);
            readBlock(blockIn, keyGroup, header.keySerializer(), states, metaInfos, which);
            if (blockIn.position() != blockLength) {
                throw new SerializationException(which + ": key group " + keyGroup + " should end after "
                        + blockLength + " bytes but reading stopped after " + blockIn.position()
                        + ": a state serializer reads differently from how it wrote");
            }
        }
        long trailing = in.skipToEnd();
        if (trailing > 0) {
            throw new SerializationException(which + " has " + trailing
                    + " unexpected bytes after its last key group: it is corrupt");
        }
    }

    /**
     * Reads the header from the start of {@code in}: a prefix of the stream is decoded, and a longer one
     * when the header does not fit (its length is not recorded); what follows the header stays readable in
     * {@code in}.
     */
    private Header readHeader(SnapshotStream in, String which) throws IOException {
        // the snapshot's header records no length: decode a prefix, and a longer one while it does not fit
        int prefixLength = HEADER_PREFIX_BYTES;
        byte[] prefix = in.data().readNBytes(prefixLength);
        while (true) {
            DataInputBuffer buffer = new DataInputBuffer(prefix);
            try {
                Header header = decodeHeader(buffer, which);
                in.pushBack(prefix, buffer.position());
                return header;
            } catch (CorruptHeaderException e) {
                throw e;
            } catch (SerializationException e) {
                if (prefix.length < prefixLength || prefixLength >= MAX_HEADER_BYTES) {
                    throw e; // the whole snapshot (or as much as a header may be) was read: corrupt, or no snapshot
                }
                prefixLength *= 2;
                byte[] more = in.data().readNBytes(prefixLength - prefix.length);
                byte[] longer = java.util.Arrays.copyOf(prefix, prefix.length + more.length);
                System.arraycopy(more, 0, longer, prefix.length, more.length);
                prefix = longer;
            }
        }
    }

    private Header decodeHeader(DataInputBuffer in, String which) {
        int magic = in.readInt();
        if (magic != KeyedSnapshotFormat.MAGIC) {
            throw new CorruptHeaderException(which + " does not start with the keyed-state snapshot marker (found 0x"
                    + Integer.toHexString(magic) + "): it is not a keyed-state snapshot, or it is corrupt");
        }
        int version = in.readInt();
        if (version < 1 || version > KeyedSnapshotFormat.VERSION) {
            throw new CorruptHeaderException(which + " has format version " + version + ", but this Sluice reads"
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
        StateMetaInfo[] metaInfos = new StateMetaInfo[stateCount];
        for (int s = 0; s < stateCount; s++) {
            metaInfos[s] = StateMetaInfo.readFrom(in, version, classLoader);
        }
        int groupCount = version < 3 ? in.readVarInt() : Integer.MAX_VALUE;
        return new Header(version, keySerializer, metaInfos, groupCount);
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
