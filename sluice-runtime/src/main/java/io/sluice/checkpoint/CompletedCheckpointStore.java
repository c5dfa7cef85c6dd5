package io.sluice.checkpoint;

import io.sluice.job.JobStatus;
import java.util.List;
import java.util.Optional;

/**
 * The completed checkpoints of one job, as seen by its current job master.
 *
 * <p>It is created already recovered (by a {@code CheckpointRecoveryFactory}, once per leadership
 * session, on an I/O thread): there is no {@code recover()}. {@link #latest()} is served from
 * memory, which is what lets task failover restore without reading any metadata from storage.
 *
 * <p>Threading: {@link #latest()}, {@link #retainedIds()} and {@link #size()} may be called from
 * any thread, including main threads, and never block. {@link #addCheckpoint} and
 * {@link #shutdown} block on I/O (HA pointer writes) and are called from an I/O executor, one call
 * at a time per job.
 */
public interface CompletedCheckpointStore {

    /**
     * Makes {@code checkpoint} (whose metadata is already in checkpoint storage) the latest: persists
     * its pointer, then holds it in memory. Returns the ids of the checkpoints it subsumed beyond
     * the retention limit; the caller discards their files asynchronously.
     *
     * @throws CheckpointStoreShutDownException after {@link #shutdown}: the job ended while the
     *                   checkpoint was finalized; no pointer is written, and the caller discards its files
     * @throws CheckpointPointerInDoubtException if the pointer write started but failed without
     *                   telling whether it landed (interrupted by a revocation, connection lost): the
     *                   checkpoint does not count as completed, and the caller keeps its files
     * @throws Exception if the pointer was not persisted (for example, leadership was lost before the
     *                   write); the checkpoint then does not count as completed, and the caller discards its files
     */
    List<Long> addCheckpoint(CompletedCheckpoint checkpoint) throws Exception;

    /** The latest completed checkpoint, from memory. */
    Optional<CompletedCheckpoint> latest();

    /** Ids of all retained checkpoints, ascending. */
    List<Long> retainedIds();

    int size();

    /**
     * Checkpoint {@code unusableId} turned out unusable while tasks restored from it (a corrupt or
     * undecodable state file): from now on {@link #latest()} is the newest older retained
     * checkpoint that is usable, whose metadata is read from storage if it is not in memory, or
     * empty if none is. Unusable checkpoints keep their pointers and files (retention removes them
     * later); they are never restored from again in this session. {@code events} is told of every
     * checkpoint skipped.
     *
     * <p>Blocking, on an I/O executor.
     *
     * @return the new latest checkpoint, or empty if no usable one remains
     * @throws Exception if storage could not be read (nothing changed then; retry)
     */
    default Optional<CompletedCheckpoint> fallBackFrom(long unusableId, java.util.function.Consumer<String> events)
            throws Exception {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot fall back to an older checkpoint");
    }

    /**
     * Every retained checkpoint turned out unusable and the job waited for its files to be repaired:
     * forgets which checkpoints were found unusable in this session and makes the newest retained
     * one whose metadata is readable the latest again (read from storage if it is not in memory), so
     * that the next deployment tries it again. Blocking, on an I/O executor.
     *
     * @return the newest retained checkpoint with readable metadata, or empty if none is
     * @throws Exception if storage could not be read (retry)
     */
    default Optional<CompletedCheckpoint> retryUnusable(java.util.function.Consumer<String> events) throws Exception {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot retry unusable checkpoints");
    }

    int maxRetained();

    /**
     * Called once the job reached {@code status} under this job master (and, for a globally terminal
     * status, after its result is durable). With {@code discardCheckpoints} the pointers are removed
     * (first) and the checkpoint files discarded; otherwise everything is kept: the pointers for the
     * next leader ({@code SUSPENDED}), or so that the job can be started again from its checkpoints
     * ({@code FAILED}, and {@code CANCELED} with {@code checkpoints.retain-on-cancel}).
     * The job manager runner's rule: only a FINISHED job, or a CANCELED one that asked for it,
     * discards (see {@link CheckpointRetention}).
     *
     * <p>After it (and while it runs) {@link #addCheckpoint} is refused: a checkpoint still being
     * finalized when the job ended must not leave a pointer behind the cleanup.
     */
    void shutdown(JobStatus status, boolean discardCheckpoints) throws Exception;

    /** {@link #shutdown(JobStatus, boolean)} with the default retention: discard only when FINISHED. */
    default void shutdown(JobStatus status) throws Exception {
        shutdown(status, CheckpointRetention.discardsByDefault(status));
    }
}
