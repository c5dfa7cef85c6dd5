package io.sluice.state.rocksdb;

import io.sluice.core.serialization.DataOutputBuffer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The changelog of a {@link RocksDbKeyedStateBackend} ({@code state.backend.rocksdb.changelog.materialize-every}
 * above 1): every write to its states since its last <em>materialisation</em> (a checkpoint that flushed RocksDB and
 * took its files, the <em>base</em>), in segments, one per checkpoint since. A checkpoint between materialisations
 * is the base's files (uploaded once, referred to after) and the segments: it uploads only the segment of the
 * changes since the checkpoint before, in proportion to the change and never a compaction's output. A restore
 * opens the base and replays the segments ({@link RocksDbChangelogReplay}).
 *
 * <p><b>When a checkpoint materialises:</b> with no base (the first checkpoint, the first after a restore), every
 * {@code materialize-every}-th checkpoint, and when the states' descriptions changed since the base (a state
 * registered or migrated: the base's files hold only the states described with it).
 *
 * <p><b>Segment format</b> (local files {@code changelog-<random>-<sequence>}, uploaded as shared files under unique
 * names; the random part keeps the names of two backends' segments apart, so a file of a restored checkpoint is never
 * taken for a new one):
 *
 * <pre>
 * int "SLRC", int version (1), then records: byte op (1 put, 2 merge, 3 delete, 4 delete range),
 * varint state index (registration order), varint length + key, and for put, merge and delete range
 * varint length + value (the range's end); then byte 0 (the end: a segment without it is cut off)
 * </pre>
 *
 * <p>Threading: task thread only (the states write on it, checkpoints are taken on it).
 */
final class RocksDbChangelog {
    static final String PREFIX = "changelog-";
    static final int MAGIC = 0x534C5243; // "SLRC"
    static final int VERSION = 1;
    static final byte END = 0;
    static final byte PUT = 1;
    static final byte MERGE = 2;
    static final byte DELETE = 3;
    static final byte DELETE_RANGE = 4;
    private static final int WRITE_THRESHOLD = 1 << 20;

    private final Path directory;
    private final int materializeEvery;
    private final String owner;
    private final String segmentPrefix = PREFIX + UUID.randomUUID().toString().substring(0, 13) + "-";
    private final DataOutputBuffer buffer = new DataOutputBuffer(64 << 10);

    /** The files of the last materialisation (hard links), or {@code null}: the next checkpoint materialises. */
    private Path base;
    /** The states' descriptions the base was taken with. */
    private byte[] baseStateMetaData;
    /** The closed segments since the base, oldest first. */
    private final List<Path> segments = new ArrayList<>();
    private OutputStream current;
    private Path currentFile;
    private long sequence;
    private int checkpointsSinceBase;
    /** Column family id to state index, for logging write batches; rebuilt when states are added. */
    private Map<Integer, Integer> stateIndexByColumn = Map.of();

    /**
     * @param directory        where bases and segments are kept (beside the instance, on the same file system)
     * @param materializeEvery every how many checkpoints one materialises; 1: every one (no changelog, nothing is
     *                         logged)
     */
    RocksDbChangelog(Path directory, int materializeEvery, String owner) {
        if (materializeEvery < 1) {
            throw new IllegalArgumentException("materializeEvery must be at least 1, was " + materializeEvery);
        }
        this.directory = directory;
        this.materializeEvery = materializeEvery;
        this.owner = owner;
    }

    /** Whether writes are logged now: only while there is a base to replay them onto. */
    boolean logging() {
        return base != null;
    }

    void put(int state, byte[] key, byte[] value) {
        if (base != null) {
            record(PUT, state, key, 0, key.length, value);
        }
    }

    void merge(int state, byte[] key, byte[] value) {
        if (base != null) {
            record(MERGE, state, key, 0, key.length, value);
        }
    }

    void delete(int state, byte[] key) {
        if (base != null) {
            record(DELETE, state, key, 0, key.length, null);
        }
    }

    /**
     * Logs every write of {@code batch} (before or after it is written: the order of writes to one key is the
     * task's). {@code columns} are the states' column families in registration order.
     */
    void batch(WriteBatch batch, List<ColumnFamilyHandle> columns) {
        if (base == null || batch.count() == 0) {
            return;
        }
        if (stateIndexByColumn.size() != columns.size()) {
            Map<Integer, Integer> byColumn = new HashMap<>();
            for (int i = 0; i < columns.size(); i++) {
                byColumn.put(columns.get(i).getID(), i);
            }
            stateIndexByColumn = byColumn;
        }
        try (BatchRecorder recorder = new BatchRecorder()) {
            batch.iterate(recorder);
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not read a write batch of " + owner + " into its changelog: "
                    + e.getMessage(), e);
        }
    }

    /**
     * Whether checkpoint number {@code checkpointsSinceBase + 1} after the base may be a changelog checkpoint:
     * there is a base, it is not time to materialise, and the states are described as they were at the base.
     */
    boolean canAppend(byte[] stateMetaData) {
        return base != null && checkpointsSinceBase + 1 < materializeEvery
                && Arrays.equals(stateMetaData, baseStateMetaData);
    }

    /**
     * A changelog checkpoint: ends the current segment (the changes since the previous checkpoint) and puts hard
     * links of the base's files and of every segment since into {@code target}, a new directory.
     */
    void linkCheckpoint(Path target) throws IOException {
        endSegment();
        checkpointsSinceBase++;
        Files.createDirectories(target);
        for (Path file : list(base)) {
            Files.createLink(target.resolve(file.getFileName()), file);
        }
        for (Path segment : segments) {
            Files.createLink(target.resolve(segment.getFileName()), segment);
        }
    }

    /**
     * A materialisation: the RocksDB checkpoint at {@code checkpoint} (just flushed and created) becomes the base
     * (hard links of its files); the old base and the segments are deleted and logging starts afresh.
     */
    void rebase(Path checkpoint, byte[] stateMetaData) throws IOException {
        discardSegments();
        if (materializeEvery == 1) {
            return;
        }
        Path next = directory.resolve("base-" + UUID.randomUUID());
        Files.createDirectories(next);
        for (Path file : list(checkpoint)) {
            Files.createLink(next.resolve(file.getFileName()), file);
        }
        Path old = base;
        base = next;
        baseStateMetaData = stateMetaData;
        checkpointsSinceBase = 0;
        if (old != null) {
            RocksDbInstance.deleteDirectory(old);
        }
    }

    /** Forgets the base (the next checkpoint materialises) and deletes the local files. */
    void close() {
        discardSegments();
        if (base != null) {
            RocksDbInstance.deleteDirectory(base);
            base = null;
        }
    }

    /** The closed segments since the base (for tests). */
    int segments() {
        return segments.size();
    }

    /** Whether checkpoints between materialisations are changelog checkpoints ({@code materialize-every} above 1). */
    boolean enabled() {
        return materializeEvery > 1;
    }

    /** Whether {@code fileName} names a segment. */
    static boolean isSegment(String fileName) {
        return fileName.startsWith(PREFIX);
    }

    private void record(byte op, int state, byte[] key, int keyOffset, int keyLength, byte[] value) {
        buffer.writeByte(op);
        buffer.writeVarInt(state);
        buffer.writeVarInt(keyLength);
        buffer.write(key, keyOffset, keyLength);
        if (value != null) {
            buffer.writeVarInt(value.length);
            buffer.write(value);
        }
        if (buffer.position() >= WRITE_THRESHOLD) {
            writeBuffer();
        }
    }

    private void writeBuffer() {
        try {
            if (current == null) {
                Files.createDirectories(directory);
                currentFile = directory.resolve(segmentPrefix + String.format("%012d", sequence++));
                current = Files.newOutputStream(currentFile);
                DataOutputBuffer header = new DataOutputBuffer(8);
                header.writeInt(MAGIC);
                header.writeInt(VERSION);
                current.write(header.array(), 0, header.position());
            }
            current.write(buffer.array(), 0, buffer.position());
            buffer.clear();
        } catch (IOException e) {
            throw new RocksDbStateException("Could not write the changelog of " + owner + " to " + directory + " ("
                    + e + "): check the room on the disk of state.backend.rocksdb.local-dir", e);
        }
    }

    /** Closes the current segment, if anything was logged since the last one. */
    private void endSegment() throws IOException {
        if (buffer.position() == 0 && current == null) {
            return;
        }
        buffer.writeByte(END);
        writeBuffer();
        current.close();
        segments.add(currentFile);
        current = null;
        currentFile = null;
    }

    private void discardSegments() {
        buffer.clear();
        if (current != null) {
            try {
                current.close();
            } catch (IOException ignored) {
                // deleted next
            }
            segments.add(currentFile);
            current = null;
            currentFile = null;
        }
        for (Path segment : segments) {
            try {
                Files.deleteIfExists(segment);
            } catch (IOException ignored) {
                // the directory goes with the backend
            }
        }
        segments.clear();
    }

    private static List<Path> list(Path dir) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    /** Records the writes of a batch; task thread, inside {@link #batch}. */
    private final class BatchRecorder extends WriteBatch.Handler {
        private int index(int columnFamilyId) throws RocksDBException {
            Integer i = stateIndexByColumn.get(columnFamilyId);
            if (i == null) {
                throw new RocksDBException("a write to column family " + columnFamilyId + ", which is no state's");
            }
            return i;
        }

        @Override
        public void put(int columnFamilyId, byte[] key, byte[] value) throws RocksDBException {
            record(PUT, index(columnFamilyId), key, 0, key.length, value);
        }

        @Override
        public void merge(int columnFamilyId, byte[] key, byte[] value) throws RocksDBException {
            record(MERGE, index(columnFamilyId), key, 0, key.length, value);
        }

        @Override
        public void delete(int columnFamilyId, byte[] key) throws RocksDBException {
            record(DELETE, index(columnFamilyId), key, 0, key.length, null);
        }

        @Override
        public void singleDelete(int columnFamilyId, byte[] key) throws RocksDBException {
            delete(columnFamilyId, key);
        }

        @Override
        public void deleteRange(int columnFamilyId, byte[] beginKey, byte[] endKey) throws RocksDBException {
            record(DELETE_RANGE, index(columnFamilyId), beginKey, 0, beginKey.length, endKey);
        }

        @Override
        public void put(byte[] key, byte[] value) {
            unsupported();
        }

        @Override
        public void merge(byte[] key, byte[] value) {
            unsupported();
        }

        @Override
        public void delete(byte[] key) {
            unsupported();
        }

        @Override
        public void singleDelete(byte[] key) {
            unsupported();
        }

        @Override
        public void deleteRange(byte[] beginKey, byte[] endKey) {
            unsupported();
        }

        @Override
        public void logData(byte[] blob) {
            // not a write
        }

        @Override
        public void putBlobIndex(int columnFamilyId, byte[] key, byte[] value) {
            unsupported();
        }

        @Override
        public void markBeginPrepare() {
            unsupported();
        }

        @Override
        public void markEndPrepare(byte[] xid) {
            unsupported();
        }

        @Override
        public void markNoop(boolean emptyBatch) {
            // nothing written
        }

        @Override
        public void markRollback(byte[] xid) {
            unsupported();
        }

        @Override
        public void markCommit(byte[] xid) {
            unsupported();
        }

        @Override
        public void markCommitWithTimestamp(byte[] xid, byte[] ts) {
            unsupported();
        }

        private void unsupported() {
            throw new IllegalStateException("A write batch of " + owner + " holds a write the changelog does not"
                    + " know (states write to their own column families only)");
        }
    }
}
