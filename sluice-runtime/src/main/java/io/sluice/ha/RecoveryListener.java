package io.sluice.ha;

/**
 * Receives progress of a checkpoint-store recovery, for the job's INITIALIZING status. Called from
 * the recovering I/O thread; implementations must be thread-safe and non-blocking.
 */
public interface RecoveryListener {
    RecoveryListener NONE = new RecoveryListener() { };

    default void phase(String description) {}

    default void pointersFound(int count) {}

    default void metadataLoaded(long checkpointId) {}

    /** Something the user should know, e.g. a fallback to an older checkpoint. */
    default void event(String message) {}
}
