package io.sluice.ha;

import io.sluice.graph.JobId;
import java.util.List;

/**
 * The HA record of which checkpoints of a job are completed: one small entry per retained
 * checkpoint, holding the storage path of its metadata (the metadata itself lives in checkpoint
 * storage). Implemented on files ({@link io.sluice.ha.embedded.FileCheckpointPointerStore}) and
 * on ZooKeeper znodes; {@link io.sluice.ha.embedded.DefaultCompletedCheckpointStore} and its
 * {@code recover} work on any implementation.
 *
 * <p>Threading: thread-safe; every method blocks on I/O and first checks that it is not on a
 * component main thread. Writes are atomic; removals are idempotent. Fencing: writers call
 * {@link #writePointer}, {@link #removePointer} and {@link #removeAll} inside
 * {@link LeaderElection#runIfLeader}; an implementation may add its own conditional check there.
 */
public interface CheckpointPointerStore {

    /** Ids of the job's pointers, ascending: one listing, no pointer is read. */
    List<Long> checkpointIds(JobId jobId) throws Exception;

    /** Persists the pointer of checkpoint {@code checkpointId} atomically (replacing an existing one). */
    void writePointer(JobId jobId, long checkpointId, String metadataPath) throws Exception;

    /**
     * The metadata path the pointer of {@code checkpointId} holds.
     *
     * @throws java.nio.file.NoSuchFileException if there is no such pointer (the message names the job and the location)
     */
    String readPointer(JobId jobId, long checkpointId) throws Exception;

    /** Removes one pointer; idempotent. */
    void removePointer(JobId jobId, long checkpointId) throws Exception;

    /** Removes every pointer of the job (and whatever else the store keeps per job); idempotent. */
    void removeAll(JobId jobId) throws Exception;
}
