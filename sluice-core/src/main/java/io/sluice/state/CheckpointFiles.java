package io.sluice.state;

import java.nio.file.Path;

/**
 * What a keyed state backend that checkpoints files (RocksDB's incremental checkpoints) needs from
 * checkpoint storage; implemented by the runtime for one task and one checkpoint.
 *
 * <p>Threading: called from the thread that uploads a snapshot (an I/O thread) or restores one (the
 * task thread); implementations block on storage I/O.
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
}
