package io.sluice.ha;

import io.sluice.checkpoint.CheckpointIdCounter;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpointStore;
import io.sluice.graph.JobId;
import java.util.UUID;

/**
 * Creates a job's checkpoint store and id counter for one leadership session.
 *
 * <p>{@link #createRecoveredCompletedCheckpointStore} is the one place where checkpoint metadata
 * is read from storage: once per leadership session, on an I/O thread, never on task failover.
 * It lists the retained pointers and loads only the latest checkpoint's metadata; older ones are
 * kept as pointers (loaded only if a fallback needs them), so its cost does not grow with the
 * number retained. A corrupt or missing latest checkpoint falls back to the next older one and
 * reports it through the listener.
 *
 * <p>It blocks and may throw on storage errors; the caller retries with backoff. It must react to
 * interruption (cancellation) by throwing promptly. Writes by the returned store are fenced on
 * {@code leaderSessionId}.
 */
public interface CheckpointRecoveryFactory {

    CompletedCheckpointStore createRecoveredCompletedCheckpointStore(
            JobId jobId, int maxRetained, CheckpointStorage storage, LeaderElection election, UUID leaderSessionId,
            boolean allowStartWithoutCheckpoint, RecoveryListener listener) throws Exception;

    /**
     * The metadata paths of the checkpoints the HA services retain for {@code jobId} (also of a job
     * that ended FAILED or CANCELED and kept them), newest first; empty when there are none or when
     * these services keep no pointers. Blocking, I/O executor only. Used to start a job from
     * {@code latest:<jobId>}.
     */
    default java.util.List<String> retainedCheckpointPaths(JobId jobId) throws Exception {
        return java.util.List.of();
    }

    /**
     * Removes everything these services keep for the checkpoints of an ended job: its pointers and its
     * checkpoint id counter. Called for a job with a durable result only, inside the caller's
     * {@link LeaderElection#runIfLeader} (the job's or the dispatcher's leadership), before its checkpoint
     * files are deleted (a pointer to deleted files would fail a later {@code latest:<jobId>}). Idempotent;
     * blocking, I/O executor only. The default keeps nothing, so removes nothing.
     */
    default void removeCheckpointsOfEndedJob(JobId jobId) throws Exception {
    }

    /** The counter for the job; blocking; ids continue after every checkpoint ever completed. */
    CheckpointIdCounter createCheckpointIdCounter(JobId jobId, long minimumNextId) throws Exception;
}
