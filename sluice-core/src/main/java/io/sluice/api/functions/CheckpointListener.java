package io.sluice.api.functions;

/**
 * Implemented by functions (typically sinks) that want to know when a checkpoint is complete,
 * for example to commit a transaction. Called on the task thread.
 */
public interface CheckpointListener {
    void notifyCheckpointComplete(long checkpointId) throws Exception;
}
