package io.sluice.storage;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A small blocking blob store that checkpoint storage is built on: local disk now, an object
 * store such as S3 later.
 *
 * <p>Paths are relative, {@code '/'}-separated keys such as {@code 1a2b.../chk-7/_metadata}; they
 * never start with {@code '/'} and never contain {@code ".."} segments. {@link #list(String)}
 * treats its argument as a plain string prefix of such keys (as object stores do).
 *
 * <p>Errors are reported as the unchecked {@link StorageException}, whose message names the store
 * location, the operation and the path; a missing blob on {@link #get(String)} is the subclass
 * {@link BlobNotFoundException}.
 *
 * <p>Threading: implementations are thread-safe. <b>Every method except {@link #describe()} may
 * block</b> (disk or network I/O, retries), so it must never be called from a component main
 * thread; call it from an I/O executor and hand the result back to the main thread.
 */
public interface BlobStore {

    /**
     * Stores {@code data} at {@code path}, replacing any previous blob. Atomic: a concurrent or
     * later reader sees either the whole new blob or none of it (never a partial write), also after
     * a crash of the writer.
     */
    void put(String path, byte[] data);

    /**
     * Stores {@code content} at {@code path}, replacing any previous blob, with the same atomicity as
     * {@link #put(String, byte[])}: readers see the whole new blob or none of it, also after a crash of the
     * writer. Stores that stream (local files, S3) never hold the whole blob in memory, so it may be larger
     * than 2 GB; {@link BlobContent#open} is called once or more (per part, per retry).
     *
     * <p>The default reads the content into an array and calls {@link #put(String, byte[])}; it refuses
     * content longer than {@value #MAX_ARRAY_BLOB_BYTES} bytes with a {@link StorageException}.
     *
     * @throws StorageException if the write fails, also when the content cannot be read (an
     *                          {@link IOException} of {@link BlobContent#open} or its stream is the cause)
     */
    default void put(String path, BlobContent content) {
        long length = content.length();
        if (length > MAX_ARRAY_BLOB_BYTES) {
            throw new StorageException(StorageException.message(role(), describe(), "cannot write a blob of " + length
                    + " bytes (this store writes blobs of at most " + MAX_ARRAY_BLOB_BYTES + " bytes, as one array;"
                    + " use a local file system or S3 location, which stream)", "put", path));
        }
        byte[] data;
        try (InputStream in = content.open(0, length)) {
            data = in.readNBytes((int) length);
        } catch (IOException e) {
            throw new StorageException(StorageException.message(role(), describe(), "failed (the content to write"
                    + " could not be read: " + StorageException.describeCause(e) + ")", "put", path), e);
        }
        if (data.length != length) {
            throw new StorageException(StorageException.message(role(), describe(), "failed (the content to write"
                    + " ended after " + data.length + " of " + length + " bytes)", "put", path));
        }
        put(path, data);
    }

    /**
     * Stores the complete local {@code file} (its bytes as they are, no header added) at {@code path}, with the
     * same atomicity as {@link #put(String, byte[])}. The file must not change from now on; the caller may delete
     * its own name for it once this returns.
     *
     * <p>The default streams the file through {@link #put(String, BlobContent)}. A store that keeps each blob as
     * a local file links the file into place instead of copying it, where the file system allows
     * ({@link LocalFileBlobStore}).
     *
     * @throws StorageException if the write fails
     */
    default void putFile(String path, Path file) {
        put(path, BlobContent.ofFile(new byte[0], file));
    }

    /** The largest blob the default {@link #put(String, BlobContent)} writes: the largest safe array size. */
    long MAX_ARRAY_BLOB_BYTES = Integer.MAX_VALUE - 8;

    /** The whole blob at {@code path}; throws {@link BlobNotFoundException} if there is none. */
    byte[] get(String path);

    /**
     * The blob at {@code path} as a stream, which the caller must close. Stores that stream (local
     * files, S3) never hold the whole blob in memory. Opening is one read of the blob in the store's
     * counts and faults.
     *
     * <p>Errors: opening throws {@link BlobNotFoundException} if there is no blob (as {@link #get}), or a
     * {@link StorageException} if the store fails. Once open, a failure while reading (a dropped connection,
     * a disk error) is an {@link IOException} from {@code read}, naming what failed where the store can.
     *
     * <p>The default is a stream over {@link #get(String)}.
     */
    default InputStream openRead(String path) {
        return new ByteArrayInputStream(get(path));
    }

    /**
     * The local file that holds the blob at {@code path} (whether or not it exists yet), when this store keeps
     * every blob as one plain file of the local file system; empty for any other store (the default). A copy
     * between two stores that both answer uses a hard link ({@code StateFileStreams.copyTo}). Never blocks.
     */
    default Optional<Path> localFile(String path) {
        return Optional.empty();
    }

    /**
     * Where the blob at {@code path} lives, when this store is an object store that can copy objects on its
     * server ({@link #copyObject}); empty for any other store (the default). Never blocks.
     */
    default Optional<ObjectAddress> objectAddress(String path) {
        return Optional.empty();
    }

    /**
     * Copies the object at {@code source} (another store's {@link #objectAddress}) to {@code path} in this store on
     * the server, the data never passing through this process, with the same atomicity as a put, and returns the
     * bytes of the copy; or returns -1 and copies nothing when this store cannot (another service, an object too
     * large for one server-side copy, or the default): the caller then streams the copy.
     *
     * @throws StorageException     if the copy fails
     * @throws BlobNotFoundException if there is no object at {@code source}
     */
    default long copyObject(ObjectAddress source, String path) {
        return -1;
    }

    /** Whether a complete blob is stored at {@code path}. */
    boolean exists(String path);

    /**
     * All stored blob paths that start with {@code prefix}, sorted ascending. Never includes
     * in-progress (not yet atomically published) writes. An empty prefix lists the whole store.
     */
    List<String> list(String prefix);

    /**
     * Discards the writes to paths that start with {@code prefix} and that {@code which} accepts, which began and
     * were never published: what a writer that died mid-write left (a local directory's hidden in-progress files,
     * an open multipart upload on S3). No listing shows them and no delete of a path removes them. Only for paths
     * that nobody publishes any more: a write still running there fails. Idempotent. The default does nothing: a
     * store whose writes leave nothing unfinished.
     *
     * @return how many unfinished writes were discarded
     * @throws StorageException if they could not be found or discarded (worth trying again later)
     */
    default int discardUnfinishedWrites(String prefix, java.util.function.Predicate<String> which) {
        return 0;
    }

    /** Deletes the blob at {@code path}; does nothing if there is none (idempotent). */
    void delete(String path);

    /**
     * Deletes the blob at {@code prefix} and every blob below the directory {@code prefix}
     * (i.e. below {@code prefix + "/"}); does nothing if there is none (idempotent).
     */
    void deleteRecursively(String prefix);

    /** The location of this store for messages and status, for example {@code file:///tmp/cp}. Never blocks. */
    String describe();

    /**
     * What this store is for, the first words of its error messages: {@link StorageException#CHECKPOINT_STORAGE}
     * (the default) or {@link StorageException#HA_STORAGE}. Never blocks.
     */
    default String role() {
        return StorageException.CHECKPOINT_STORAGE;
    }
}
