package io.sluice.state;

/**
 * A snapshot that goes to checkpoint storage as files, uploading only those no checkpoint of this
 * task confirmed before (RocksDB's incremental checkpoints). It can still be written in the canonical
 * format ({@link #writeTo}), which a savepoint or another backend needs.
 *
 * <p>Threading: {@link #upload} or {@link #writeTo} runs once, on any one thread; {@link #discard}
 * releases it if neither ever runs. The backend's close stops a running one.
 */
public interface IncrementalKeyedStateSnapshot extends KeyedStateSnapshot {
    /** Uploads the new files, refers to the confirmed ones, and returns the handle. */
    IncrementalStateHandle upload(CheckpointFiles files);

    /** Releases what the snapshot holds (local hard links) without uploading. Idempotent. */
    void discard();
}
