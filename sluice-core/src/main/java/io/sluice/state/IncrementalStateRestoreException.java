package io.sluice.state;

import io.sluice.api.errors.UnrecoverableJobException;

/**
 * A checkpoint holds a task's keyed state as RocksDB's own files (an incremental checkpoint), which
 * only the RocksDB backend reads: a job restored from it with another state backend fails at once,
 * saying what to do.
 */
public class IncrementalStateRestoreException extends IllegalStateException implements UnrecoverableJobException {
    public IncrementalStateRestoreException(String message) {
        super(message);
    }
}
