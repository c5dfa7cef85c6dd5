package io.sluice.state;

import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A task's keyed state in a checkpoint as the files of its RocksDB instance (an incremental
 * checkpoint): the table files, which later checkpoints of the same task share for as long as they
 * are live ({@link #sharedFiles}), the files of this checkpoint only (manifest, current, options:
 * {@link #privateFiles}), and the states' descriptions ({@link #stateMetaData}: what the canonical
 * format's header holds, so that a restore knows the column families, serializers and key groups).
 *
 * <p>Each {@link StateFile} names the file in the RocksDB directory ({@code localName}) and where it
 * is in checkpoint storage ({@code path}: a path in the job's checkpoint storage, or a full location).
 * Immutable (the byte array is not copied and must not be changed); serializable (it travels in task
 * deployment descriptors).
 *
 * @param keyGroupRange  the key groups the files hold (the writer's range)
 * @param maxParallelism the number of key groups of the writing job
 * @param stateMetaData  the states' descriptions (see {@code RocksDbIncrementalSnapshot}), small
 * @param sharedFiles    table files, shared by later checkpoints
 * @param privateFiles   the other files, of this checkpoint only
 */
public record IncrementalStateHandle(KeyGroupRange keyGroupRange, int maxParallelism, byte[] stateMetaData,
                                     List<StateFile> sharedFiles, List<StateFile> privateFiles) implements Serializable {

    /** One file: its name in the RocksDB directory, its path in checkpoint storage, its size. */
    public record StateFile(String localName, String path, long size) implements Serializable {
        public StateFile {
            Objects.requireNonNull(localName, "localName");
            Objects.requireNonNull(path, "path");
        }
    }

    public IncrementalStateHandle {
        Objects.requireNonNull(keyGroupRange, "keyGroupRange");
        Objects.requireNonNull(stateMetaData, "stateMetaData");
        sharedFiles = List.copyOf(sharedFiles);
        privateFiles = List.copyOf(privateFiles);
    }

    /** The bytes of all its files. */
    public long totalSize() {
        long n = 0;
        for (StateFile f : sharedFiles) {
            n += f.size();
        }
        for (StateFile f : privateFiles) {
            n += f.size();
        }
        return n;
    }

    /** The same handle with every path mapped by {@code relocate} (for a checkpoint read from another place). */
    public IncrementalStateHandle withPaths(java.util.function.UnaryOperator<String> relocate) {
        return new IncrementalStateHandle(keyGroupRange, maxParallelism, stateMetaData,
                sharedFiles.stream().map(f -> new StateFile(f.localName(), relocate.apply(f.path()), f.size())).toList(),
                privateFiles.stream().map(f -> new StateFile(f.localName(), relocate.apply(f.path()), f.size())).toList());
    }

    /** Writes it for checkpoint metadata: range, max parallelism, meta data, shared files, private files. */
    public void writeTo(DataOutputBuffer out) {
        out.writeInt(keyGroupRange.start());
        out.writeInt(keyGroupRange.end());
        out.writeInt(maxParallelism);
        out.writeBytes(stateMetaData);
        writeFiles(sharedFiles, out);
        writeFiles(privateFiles, out);
    }

    private static void writeFiles(List<StateFile> files, DataOutputBuffer out) {
        out.writeVarInt(files.size());
        for (StateFile f : files) {
            out.writeUTF(f.localName());
            out.writeUTF(f.path());
            out.writeLong(f.size());
        }
    }

    /** Reads what {@link #writeTo} wrote. */
    public static IncrementalStateHandle readFrom(DataInputBuffer in) {
        KeyGroupRange range = KeyGroupRange.of(in.readInt(), in.readInt());
        int maxParallelism = in.readInt();
        byte[] meta = in.readBytes();
        if (meta == null) {
            throw new SerializationException("An incremental state handle has no state descriptions: it is corrupt");
        }
        List<StateFile> shared = readFiles(in);
        List<StateFile> own = readFiles(in);
        return new IncrementalStateHandle(range, maxParallelism, meta, shared, own);
    }

    private static List<StateFile> readFiles(DataInputBuffer in) {
        int n = in.readVarInt();
        if (n < 0 || n > 10_000_000) {
            throw new SerializationException("An incremental state handle claims " + n + " files: it is corrupt");
        }
        List<StateFile> files = new ArrayList<>(Math.min(n, 4096));
        for (int i = 0; i < n; i++) {
            files.add(new StateFile(in.readUTF(), in.readUTF(), in.readLong()));
        }
        return files;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IncrementalStateHandle h && keyGroupRange.equals(h.keyGroupRange)
                && maxParallelism == h.maxParallelism && java.util.Arrays.equals(stateMetaData, h.stateMetaData)
                && sharedFiles.equals(h.sharedFiles) && privateFiles.equals(h.privateFiles);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keyGroupRange, maxParallelism, java.util.Arrays.hashCode(stateMetaData), sharedFiles,
                privateFiles);
    }

    @Override
    public String toString() {
        return "IncrementalStateHandle{keyGroups=" + keyGroupRange + ", " + sharedFiles.size() + " shared and "
                + privateFiles.size() + " private files, " + totalSize() + " bytes}";
    }
}
