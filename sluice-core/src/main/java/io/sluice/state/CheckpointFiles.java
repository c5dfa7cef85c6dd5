package io.sluice.state;

import java.nio.file.Path;

/**
 * What a keyed state backend that checkpoints files (RocksDB's incremental checkpoints) needs from
 * checkpoint storage; implemented by the runtime for one task and one checkpoint.
 *
 * <p>Threading: called from the thread that uploads a snapshot (an I/O thread) or restores one (the
 * task thread); implementations block on storage I/O. The uploads of one snapshot and the downloads of one
 * restore may also come from helper threads, several at once ({@code state.backend.rocksdb.transfer-threads}),
 * so {@link #uploadShared}, {@link #uploadPrivate}, {@link #keepLocal} and {@link #download} are thread-safe;
 * every such call has returned when the snapshot's upload or the restore returns or throws.
 */
public interface CheckpointFiles {
    /**
     * Uploads a file that later checkpoints of this task may refer to as well, under a name no other
     * upload has (a crash in the middle leaves a file no checkpoint names), and returns its path.
     */
    String uploadShared(Path file, String localName);

    /** Uploads a file of this checkpoint only (deleted with the checkpoint) and returns its path. */
    String uploadPrivate(Path file, String localName);

    /** Downloads the file at {@code path} (as returned by an upload, possibly of another job) to {@code target}. */
    void download(String path, Path target);

    /**
     * For a restore: whether the checkpoint restored from is this job's own (a restart, a job-manager failover),
     * not another job's ({@code checkpoints.restore-from}). Its shared files then stay in storage as long as a
     * checkpoint of this job refers to them, so the first checkpoint after the restore may refer to them
     * instead of uploading them again. {@code false} by default.
     */
    default boolean restoringOwnCheckpoint() {
        return false;
    }

    /**
     * Uploading, when the task keeps task-local copies: keeps {@code file} as a local file of this checkpoint under
     * {@code name}, for a restore on this task executor only; it is never uploaded, and a restore elsewhere does not
     * need it. Returns whether it was kept ({@code false} by default: no local copies).
     */
    default boolean keepLocal(String name, Path file) {
        return false;
    }

    /**
     * Restoring: puts the local file this very subtask kept as {@code name} for the checkpoint being restored
     * ({@link #keepLocal}) at {@code target}, as a hard link when {@code link} (the caller never writes to it in
     * place) else as a copy, and returns {@code true}; or returns {@code false} and leaves nothing there (none kept,
     * another task executor, or a restore of several handles). {@code false} by default.
     */
    default boolean restoreLocal(String name, Path target, boolean link) {
        return false;
    }
}
