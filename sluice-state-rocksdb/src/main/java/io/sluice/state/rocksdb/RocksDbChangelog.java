package io.sluice.state.rocksdb;

import io.sluice.core.serialization.DataOutputBuffer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
 * opens the base and replays the segments ({@link RocksDbChangelogReplay}); a restore of the job's own checkpoint of
 * exactly this backend's key groups goes on from it ({@link #resume}): the restored base stays the base, so the
 * checkpoints after a failover upload their change only.
 *
 * <p><b>When a checkpoint materialises:</b> with no base (the first checkpoint, the first after a restore that does
 * not resume), every {@code materialize-every}-th checkpoint since the base, and when the states' descriptions
 * changed since the base (a state registered or migrated: the base's files hold only the states described with it,
 * and the segments only writes to their column families).
 *
 * <p><b>Segment format</b> (local files {@code changelog-<sequence>-<random>}, uploaded as shared files under unique
 * names; the sequence orders a checkpoint's segments, the random part keeps two backends' segments apart, so a file
 * of a restored checkpoint is never taken for a new one):
 *
 * <pre>
 * int "SLRC", int version (1), varint n, n x varint column family id (the base's states, in registration order);
 * then chunks: int length, length bytes of a RocksDB write batch (its own serialized form: 8 bytes sequence,
 * 4 bytes count, little-endian, then the writes, each with its column family id); then int 0 (the end: a
 * segment without it is cut off)
 * </pre>
 *
 * Chunks in RocksDB's own form replay with one native call each when the restored instance is the base's (the same
 * column family ids) and keeps all its key groups; otherwise they are read write by write, mapped by state and
 * filtered by key group.
 *
 * <p>Threading: task thread only (the states write on it, checkpoints are taken on it).
 */
final class RocksDbChangelog {
    static final String PREFIX = "changelog-";
    static final int MAGIC = 0x534C5243; // "SLRC"
    static final int VERSION = 1;
    /** RocksDB's write-batch record types (db/dbformat.h) of writes to a column family other than the default. */
    static final byte CF_DELETION = 0x4;
    static final byte CF_VALUE = 0x5;
    static final byte CF_MERGE = 0x6;
    static final byte CF_SINGLE_DELETION = 0x8;
    static final byte CF_RANGE_DELETION = 0xE;
    /** A write batch's header: sequence (8 bytes) and count (4 bytes). */
    static final int BATCH_HEADER = 12;
    private static final int CHUNK_BYTES = 1 << 20;

    private final Path directory;
    private final int materializeEvery;
    private final String owner;
    private final String random = UUID.randomUUID().toString().substring(0, 13);
    /** The chunk being filled: a write batch in RocksDB's serialized form (it grows from empty when writes are logged). */
    private final DataOutputBuffer chunk = new DataOutputBuffer(0);
    private int chunkCount;

    /** The files of the last materialisation (hard links), or {@code null}: the next checkpoint materialises. */
    private Path base;
    /** The states' descriptions the base was taken with. */
    private byte[] baseStateMetaData;
    /** The column family ids of the base's states, by registration order. */
    private int[] baseColumnIds = new int[0];
    /** The closed segments since the base, oldest first. */
    private final List<Path> segments = new ArrayList<>();
    private OutputStream current;
    private Path currentFile;
    private long sequence;
    private int checkpointsSinceBase;
    /** A restored base and its states' descriptions, between {@link #resume} and {@link #resumed}. */
    private Path pendingBase;
    private byte[] pendingStateMetaData;

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

    /** Logs a put to the state registered {@code state}-th. */
    void put(int state, byte[] key, byte[] value) {
        if (base != null && state < baseColumnIds.length) {
            record(CF_VALUE, baseColumnIds[state], key, value);
        }
    }

    void merge(int state, byte[] key, byte[] value) {
        if (base != null && state < baseColumnIds.length) {
            record(CF_MERGE, baseColumnIds[state], key, value);
        }
    }

    void delete(int state, byte[] key) {
        if (base != null && state < baseColumnIds.length) {
            record(CF_DELETION, baseColumnIds[state], key, null);
        }
    }

    /**
     * Logs every write of {@code batch}, a batch of writes to the states' column families, by appending its
     * serialized writes to the chunk (one native call). A state registered since the base is not logged: the next
     * checkpoint materialises ({@link #canAppend}).
     */
    void batch(WriteBatch batch) {
        if (base == null || batch.count() == 0) {
            return;
        }
        byte[] rep;
        try {
            rep = batch.data();
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not read a write batch of " + owner + " into its changelog: "
                    + e.getMessage(), e);
        }
        startChunk();
        chunk.write(rep, BATCH_HEADER, rep.length - BATCH_HEADER);
        chunkCount += batch.count();
        if (chunk.position() >= CHUNK_BYTES) {
            writeChunk();
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
     *
     * @param columns the states' column families, in registration order
     */
    void rebase(Path checkpoint, byte[] stateMetaData, List<ColumnFamilyHandle> columns) throws IOException {
        discardSegments();
        if (materializeEvery == 1) {
            return;
        }
        Path next = directory.resolve("base-" + UUID.randomUUID());
        Files.createDirectories(next);
        for (Path file : list(checkpoint)) {
            Files.createLink(next.resolve(file.getFileName()), file);
        }
        setBase(next, stateMetaData, columns, 0);
    }

    /**
     * Task thread, restoring this job's own changelog or materialised checkpoint of exactly this backend's key
     * groups, before RocksDB opens the downloaded files at {@code downloaded}: keeps those files (table files as
     * hard links, the others as copies, since RocksDB rewrites them once open) as the base, and the restored
     * {@code restoredSegments} (which the restore replays next) as its segments, so the next checkpoint refers to both
     * instead of materialising. Call {@link #resumed} once they are replayed: writes are logged from then on.
     */
    void resume(Path downloaded, List<Path> restoredSegments, byte[] stateMetaData) throws IOException {
        if (materializeEvery == 1) {
            return;
        }
        discardSegments();
        Path next = directory.resolve("base-" + UUID.randomUUID());
        Files.createDirectories(next);
        for (Path file : list(downloaded)) {
            Path target = next.resolve(file.getFileName());
            if (file.getFileName().toString().endsWith(".sst")) {
                Files.createLink(target, file);
            } else {
                Files.copy(file, target);
            }
        }
        long nextSequence = 0;
        for (Path segment : restoredSegments) {
            Path kept = directory.resolve(segment.getFileName());
            Files.createLink(kept, segment);
            segments.add(kept);
            nextSequence = Math.max(nextSequence, sequenceOf(segment.getFileName().toString()) + 1);
        }
        sequence = nextSequence;
        pendingBase = next;
        pendingStateMetaData = stateMetaData;
    }

    /**
     * After {@link #resume}: the restored instance is open with {@code columns}, the states' column families in
     * registration order (those of the base's manifest). Logging starts.
     */
    void resumed(List<ColumnFamilyHandle> columns) {
        if (pendingBase != null) {
            setBase(pendingBase, pendingStateMetaData, columns, segments.size());
            pendingBase = null;
            pendingStateMetaData = null;
        }
    }

    private void setBase(Path next, byte[] stateMetaData, List<ColumnFamilyHandle> columns, int sinceBase) {
        Path old = base;
        base = next;
        baseStateMetaData = stateMetaData;
        baseColumnIds = columns.stream().mapToInt(ColumnFamilyHandle::getID).toArray();
        checkpointsSinceBase = sinceBase;
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
        if (pendingBase != null) {
            RocksDbInstance.deleteDirectory(pendingBase);
            pendingBase = null;
        }
    }

    /** Whether {@code fileName} names a segment. */
    static boolean isSegment(String fileName) {
        return fileName.startsWith(PREFIX);
    }

    /** The sequence number in a segment's name, which orders the segments of one checkpoint. */
    static long sequenceOf(String fileName) {
        int end = fileName.indexOf('-', PREFIX.length());
        return Long.parseLong(fileName.substring(PREFIX.length(), end < 0 ? fileName.length() : end));
    }

    private void startChunk() {
        if (chunk.position() == 0) {
            chunk.writeLong(0);
            chunk.writeInt(0);
            chunkCount = 0;
        }
    }

    private void record(byte type, int columnFamilyId, byte[] key, byte[] value) {
        startChunk();
        chunk.writeByte(type);
        chunk.writeVarInt(columnFamilyId);
        chunk.writeVarInt(key.length);
        chunk.write(key);
        if (value != null) {
            chunk.writeVarInt(value.length);
            chunk.write(value);
        }
        chunkCount++;
        if (chunk.position() >= CHUNK_BYTES) {
            writeChunk();
        }
    }

    /** Writes the chunk (its count patched in, little-endian) to the current segment, opening it first if needed. */
    private void writeChunk() {
        try {
            if (current == null) {
                Files.createDirectories(directory);
                currentFile = directory.resolve(PREFIX + String.format("%012d", sequence++) + "-" + random);
                current = new java.io.BufferedOutputStream(Files.newOutputStream(currentFile), 1 << 16);
                DataOutputBuffer header = new DataOutputBuffer(64);
                header.writeInt(MAGIC);
                header.writeInt(VERSION);
                header.writeVarInt(baseColumnIds.length);
                for (int id : baseColumnIds) {
                    header.writeVarInt(id);
                }
                current.write(header.array(), 0, header.position());
            }
            if (chunk.position() > 0) {
                byte[] bytes = chunk.array();
                for (int i = 0; i < 4; i++) {
                    bytes[8 + i] = (byte) (chunkCount >>> (8 * i));
                }
                DataOutputBuffer length = new DataOutputBuffer(4);
                length.writeInt(chunk.position());
                current.write(length.array(), 0, 4);
                current.write(bytes, 0, chunk.position());
                chunk.clear();
                chunkCount = 0;
            }
        } catch (IOException e) {
            throw new RocksDbStateException("Could not write the changelog of " + owner + " to " + directory + " ("
                    + e + "): check the room on the disk of state.backend.rocksdb.local-dir", e);
        }
    }

    /** Closes the current segment, if anything was logged since the last one. */
    private void endSegment() throws IOException {
        if (chunk.position() == 0 && current == null) {
            return;
        }
        writeChunk();
        current.write(new byte[4]); // int 0: the end
        current.close();
        segments.add(currentFile);
        current = null;
        currentFile = null;
    }

    private void discardSegments() {
        chunk.clear();
        chunkCount = 0;
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
}
