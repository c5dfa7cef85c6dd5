package io.sluice.state.rocksdb;

/**
 * RocksDB refused an operation on a task's keyed state (a full disk, a corrupt local file). The
 * message names the task, the state and the operation; the cause is RocksDB's own error. Not
 * unrecoverable: the job restarts and restores its state from the latest checkpoint into a fresh
 * RocksDB instance.
 */
public class RocksDbStateException extends RuntimeException {
    public RocksDbStateException(String message, Throwable cause) {
        super(message, cause);
    }
}
