package io.sluice.taskexecutor;

import io.sluice.checkpoint.FramedStateFile;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.state.KeyedSnapshotOutput;
import io.sluice.util.ProcessTempFiles;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One keyed-state snapshot being serialized for a checkpoint or savepoint: kept in memory while it is
 * at most {@code spillThreshold} bytes (then it may travel inline, or be kept as a task-local copy), and
 * beyond that moved to a local temporary file after every key group, so that a snapshot of any size
 * (a savepoint of a RocksDB state of many gigabytes) needs memory for one key group only. The file is
 * framed as a state file while it is written ({@link FramedStateFile}: room for the header first, the
 * header written by {@link #finish()}), so it is published as it is
 * ({@link io.sluice.checkpoint.StateFileStreams#writeFramedTaskState}: a hard link on a local file
 * system, a stream elsewhere) and its name is deleted by {@link #close()}.
 *
 * <p>Threading: the one I/O thread writing the snapshot.
 */
final class SpillingSnapshotOutput implements KeyedSnapshotOutput, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SpillingSnapshotOutput.class);
    private static final int FILE_BUFFER_BYTES = 256 * 1024;
    /**
     * Temporary files are named {@code sluice-snapshot-<claim token>-<random>.tmp} ({@link ProcessTempFiles}), so
     * that a process can tell a killed one's.
     */
    static final String FILE_PREFIX = "sluice-snapshot-";

    private final DataOutputBuffer buffer = new DataOutputBuffer(4096);
    private final int spillThreshold;
    private final Path directory;
    private final String owner;
    private Path file;
    private OutputStream fileOut;
    private long spilledBytes;
    /** CRC32C of the payload that went to the file, for its header: the file is never read a second time. */
    private final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();

    /**
     * @param spillThreshold the most bytes kept in memory
     * @param directory      where the temporary file goes (created if missing)
     * @param owner          the task and checkpoint, for messages
     */
    SpillingSnapshotOutput(int spillThreshold, Path directory, String owner) {
        this.spillThreshold = spillThreshold;
        this.directory = directory;
        this.owner = owner;
    }

    @Override
    public DataOutputBuffer buffer() {
        return buffer;
    }

    @Override
    public void groupWritten() {
        if (fileOut == null && buffer.position() <= spillThreshold) {
            return;
        }
        try {
            if (fileOut == null) {
                Files.createDirectories(directory);
                deleteLeftoversOnce(directory);
                file = Files.createTempFile(directory, ProcessTempFiles.prefix(directory, FILE_PREFIX), ".tmp");
                fileOut = new BufferedOutputStream(Files.newOutputStream(file), FILE_BUFFER_BYTES);
                FramedStateFile.reserveHeader(fileOut);
            }
            fileOut.write(buffer.array(), 0, buffer.position());
            crc.update(buffer.array(), 0, buffer.position());
            spilledBytes += buffer.position();
            buffer.clear();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the keyed-state snapshot of " + owner + " to a local"
                    + " temporary file in " + directory + " (" + e + "): it needs room for the whole snapshot there;"
                    + " free space or point java.io.tmpdir elsewhere", e);
        }
    }

    /**
     * Once per directory and process: deletes the temporary files of processes that no longer run (a task
     * manager killed while it spilled a snapshot left its file behind); files of live processes, which may share
     * the directory, are left alone.
     */
    static void deleteLeftoversOnce(Path directory) {
        ProcessTempFiles.deleteLeftoversOnce(directory, FILE_PREFIX);
    }

    /**
     * Ends the snapshot: a spilled one is complete in its file, header included. Call once, after the writer
     * finished.
     */
    void finish() {
        if (fileOut != null) {
            groupWritten(); // whatever followed the last drain
            try {
                fileOut.close();
                FramedStateFile.finish(file, spilledBytes, (int) crc.getValue());
            } catch (IOException e) {
                throw new UncheckedIOException("Could not finish the local snapshot file " + file + " of " + owner
                        + ": " + e.getMessage(), e);
            }
        }
    }

    /** Whether the snapshot went to a file ({@link #file()}) rather than staying in memory ({@link #bytes()}). */
    boolean spilled() {
        return file != null;
    }

    /** The snapshot, when it stayed in memory. */
    byte[] bytes() {
        if (spilled()) {
            throw new IllegalStateException("The snapshot of " + owner + " is in " + file + ", not in memory");
        }
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    /** The file holding the snapshot framed as a state file (after {@link #finish}), when it spilled. */
    Path file() {
        if (!spilled()) {
            throw new IllegalStateException("The snapshot of " + owner + " stayed in memory");
        }
        return file;
    }

    /** The snapshot's length in bytes (a spilled one's payload, without the header of its file). */
    long length() {
        return spilled() ? spilledBytes + buffer.position() : buffer.position();
    }

    /** Deletes the temporary file, if any (a failure is logged). Idempotent. */
    @Override
    public void close() {
        if (fileOut != null) {
            try {
                fileOut.close();
            } catch (IOException ignored) {
                // the file is deleted next
            }
        }
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warn("Could not delete the local snapshot file {} of {}: {} (delete it by hand)", file, owner,
                        e.toString());
            }
        }
    }
}
