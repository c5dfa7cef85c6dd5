package io.sluice.storage;

import java.util.List;

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

    /** The whole blob at {@code path}; throws {@link BlobNotFoundException} if there is none. */
    byte[] get(String path);

    /** Whether a complete blob is stored at {@code path}. */
    boolean exists(String path);

    /**
     * All stored blob paths that start with {@code prefix}, sorted ascending. Never includes
     * in-progress (not yet atomically published) writes. An empty prefix lists the whole store.
     */
    List<String> list(String prefix);

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
