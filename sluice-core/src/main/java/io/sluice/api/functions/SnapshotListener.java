package io.sluice.api.functions;

/**
 * Implemented by functions (typically sinks) that must act before their task takes part in a
 * checkpoint: for example make buffered output durable, so that everything before the checkpoint's
 * barrier is written when the checkpoint completes. Called on the task thread, after the records
 * before the barrier and before any record after it.
 */
public interface SnapshotListener {
    void beforeCheckpoint(long checkpointId) throws Exception;
}
