package io.sluice.checkpoint;

import io.sluice.graph.JobId;
import io.sluice.storage.BlobContent;
import io.sluice.storage.BlobNotFoundException;
import io.sluice.storage.BlobStore;
import io.sluice.storage.ObjectAddress;
import io.sluice.storage.StorageException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The state files of one {@link CheckpointStorage} as streams ({@link CheckpointStorage#streams()}): written
 * from local files, opened, downloaded and copied, never whole in memory, so a subtask's state may be larger
 * than the heap (and than 2 GB: a version-2 header, {@link StateFileFormat}). The array methods of
 * {@code CheckpointStorage} ({@code writeTaskState(.., byte[])}, {@code readTaskState}) write and read the same
 * files. Reads and writes count in the storage's {@code state_read} and {@code state_write} requests.
 *
 * <p>Threading: thread-safe; every method blocks on storage or local file I/O (I/O threads only, as the
 * storage).
 */
public final class StateFileStreams {
    private final CheckpointStorage storage;
    private final BlobStore store;

    StateFileStreams(CheckpointStorage storage, BlobStore store) {
        this.storage = storage;
        this.store = store;
    }

    /**
     * Writes one subtask's state file of a checkpoint as {@link CheckpointStorage#writeTaskState(JobId, long, int,
     * int, byte[])} does (same path, same format), streamed from the local file {@code payload}: its CRC32C is
     * computed in one pass over the file, then the header and the file are streamed to storage. The file must not
     * change until this returns.
     *
     * @throws UncheckedIOException if the local file cannot be read, naming it
     * @throws StorageException     if the upload fails
     */
    public String writeTaskState(JobId jobId, long checkpointId, int vertexId, int subtask, Path payload) {
        String path = taskStatePath(jobId, checkpointId, vertexId, subtask);
        put(path, payload);
        return path;
    }

    /**
     * Writes one subtask's state file of a checkpoint as {@link #writeTaskState(JobId, long, int, int, Path)} does
     * (same path), from a local file that is already the complete state file ({@link FramedStateFile}, e.g. a
     * spilled snapshot): published as it is ({@link BlobStore#putFile}), a hard link where the storage keeps its
     * files on the same local file system, else a stream. The file must not change from now on.
     *
     * @throws StorageException if the write fails
     */
    public String writeFramedTaskState(JobId jobId, long checkpointId, int vertexId, int subtask, Path framedFile) {
        String path = taskStatePath(jobId, checkpointId, vertexId, subtask);
        storage.countStateWrite();
        store.putFile(path, framedFile);
        return path;
    }

    private static String taskStatePath(JobId jobId, long checkpointId, int vertexId, int subtask) {
        if (vertexId < 0 || subtask < 0) {
            throw new IllegalArgumentException("Vertex id and subtask index must be >= 0, got vertex " + vertexId
                    + ", subtask " + subtask);
        }
        return CheckpointStorage.checkpointDir(jobId, checkpointId) + "/" + vertexId + "-" + subtask + ".state";
    }

    /**
     * Writes the local file {@code payload} as a checksummed file at {@code path}, as
     * {@link CheckpointStorage#writeFile(String, byte[])} does, streamed (a savepoint's copy of a state file).
     */
    public void writeFile(String path, Path payload) {
        put(path, payload);
    }

    /** Streams the local {@code file} to {@code path} as a state file: CRC32C in one pass, then header + file. */
    void put(String path, Path file) {
        BlobContent content = LocalStateFiles.contentOf(file, storage.location() + "/" + path);
        storage.countStateWrite();
        store.put(path, content);
    }

    /**
     * The payload of a state file as a stream, which the caller must close: a file written by either
     * {@code writeTaskState}, {@code writeSharedFile}, {@code writePrivateFile} or {@code writeFile} (or a
     * version-0 file without header, as {@link CheckpointStorage#readTaskState} accepts), here or at a full
     * location ({@link CheckpointStorage#isLocation}).
     *
     * <p>The header is read and checked now. The payload's length and CRC32C are checked as the stream is
     * read: the {@code read} that reaches the end of the payload throws {@link CorruptStateFileException}
     * (unchecked) if the file is truncated, appended to or its checksum does not match, so a caller that reads
     * the stream to the end has read intact data. Other read failures are {@link IOException}s from {@code read}.
     *
     * @param expectedLength the payload length the caller knows (for example from the checkpoint metadata),
     *                       checked against the header; negative if unknown
     * @throws BlobNotFoundException     if there is no such file
     * @throws CorruptStateFileException if its header is wrong (marker, version, or a length other than
     *                                   {@code expectedLength}), naming the path
     * @throws StorageException          if the store fails to open it
     */
    public InputStream open(String path, long expectedLength) {
        if (CheckpointStorage.isLocation(path)) {
            int slash = path.lastIndexOf('/');
            return storage.otherStorageOf(path).streams().open(path.substring(slash + 1), expectedLength);
        }
        storage.countStateRead();
        InputStream file = store.openRead(path);
        try {
            return StateFileFormat.openPayload(file, path, expectedLength);
        } catch (IOException | RuntimeException e) {
            try {
                file.close();
            } catch (IOException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            if (e instanceof RuntimeException re) {
                throw re;
            }
            throw new StorageException(StorageException.message(store.role(), storage.location(), "failed ("
                    + StorageException.describeCause(e) + ") reading the header of the state file", "get", path), e);
        }
    }

    /**
     * Downloads the payload of the state file {@code path} (here, or at a full location) to {@code target},
     * checked against its checksum. It goes to a temporary sibling of {@code target} that replaces {@code target}
     * only when it was read completely and intact; on any failure it is deleted, so {@code target} is never
     * partial.
     *
     * @throws CorruptStateFileException if the stored file is not intact
     * @throws StorageException          if reading the stored file fails (also midway)
     * @throws UncheckedIOException      if the local file cannot be written
     */
    public void download(String path, Path target) {
        LocalStateFiles.download(() -> open(path, -1), target, path, e -> new StorageException(
                StorageException.message(store.role(), storage.location(), "failed (" + StorageException.describeCause(e)
                        + ") while downloading to " + target, "get", path), e));
    }

    /**
     * Copies the state file {@code path} (here, or at a full location) to {@code targetPath} in {@code target}
     * (a savepoint's copy) and returns the bytes it takes there (header and payload). When both stores keep their
     * blobs as local files ({@link BlobStore#localFile}) the copy is a hard link (a plain file copy where links
     * are not possible), published atomically; when both are the same object store's
     * ({@link BlobStore#objectAddress}, e.g. S3 with the same endpoint and credentials) it is a copy on the server
     * ({@link BlobStore#copyObject}); either way the file is checked when it is restored. Otherwise it is
     * streamed through a local temporary file and checked against its checksum on the way.
     *
     * @throws StorageException          if reading or writing a store fails
     * @throws CorruptStateFileException if a streamed copy finds the file not intact
     * @throws UncheckedIOException      if a local file cannot be made
     */
    public long copyTo(String path, CheckpointStorage target, String targetPath) {
        if (CheckpointStorage.isLocation(path)) {
            int slash = path.lastIndexOf('/');
            return storage.otherStorageOf(path).streams().copyTo(path.substring(slash + 1), target, targetPath);
        }
        Optional<Path> from = store.localFile(path);
        Optional<Path> to = target.streams().store.localFile(targetPath);
        if (from.isPresent() && to.isPresent()) {
            storage.countStateRead();
            target.countStateWrite();
            return linkOrCopy(from.get(), to.get(), path, target, targetPath);
        }
        Optional<ObjectAddress> source = store.objectAddress(path);
        if (source.isPresent()) {
            long copied = target.streams().store.copyObject(source.get(), targetPath);
            if (copied >= 0) {
                storage.countStateRead();
                target.countStateWrite();
                return copied;
            }
        }
        return LocalStateFiles.viaTemporaryFile(local -> {
            download(path, local);
            target.streams().writeFile(targetPath, local);
        }, storage.location() + "/" + path + " to " + target.location() + "/" + targetPath);
    }

    private long linkOrCopy(Path from, Path to, String path, CheckpointStorage target, String targetPath) {
        try {
            return LocalStateFiles.linkOrCopy(from, to);
        } catch (NoSuchFileException e) {
            throw new BlobNotFoundException(StorageException.message(store.role(), storage.location(), "has no blob",
                    "get", path) + " (it was never written completely, or it was deleted)", e);
        } catch (IOException e) {
            throw new StorageException(StorageException.message(target.streams().store.role(), target.location(),
                    "failed (" + StorageException.describeCause(e) + ") copying " + storage.location() + "/" + path,
                    "put", targetPath), e);
        }
    }
}
