package io.sluice.checkpoint;

import io.sluice.storage.StorageException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeoutException;

/**
 * Why a checkpoint failed, and whether that failure counts towards
 * {@code checkpoints.tolerable-failures}.
 *
 * <p>Only failures caused by the tasks themselves count: a task that declined a checkpoint
 * because its own code failed (a snapshot that could not be serialized, say). Those may be fixed by
 * restarting the task, so after more than {@code tolerable-failures} of them in a row the job fails
 * over. Failures of checkpoint storage or of the HA services (unreachable, refused, hung, full,
 * read-only) are never fixed by restarting healthy tasks: they do not count, the job keeps running,
 * its status says since when checkpoints fail and why, and the next trigger (one interval later)
 * retries, so checkpoints resume by themselves once storage answers again. A checkpoint that times
 * out is treated like a storage failure (a hung mount or a stuck upload is by far the most common
 * cause; backpressure is the other, and a restart does not help against it either).
 *
 * <p>Immutable; thread-safe.
 */
public enum CheckpointFailureReason {
    /** Checkpoint storage or the HA store failed: id counter, state upload, metadata write or pointer write. */
    STORAGE("storage", Cause.STORAGE),
    /** Not every task acknowledged within {@code checkpoints.timeout}. */
    TIMED_OUT("timeout", Cause.STORAGE),
    /** Every task acknowledged, but writing the metadata and pointer did not end within {@code checkpoints.timeout}. */
    FINALIZATION_TIMED_OUT("finalization timeout", Cause.STORAGE),
    /** A task declined because its own work failed (for example its state could not be serialized). */
    TASK_DECLINED("task", Cause.TASK),
    /**
     * This job master lost its leadership while the checkpoint was being finalized: the checkpoint is
     * not completed (its pointer was refused, or its write was cut off and may have landed: then its
     * files are kept, see {@link CheckpointPointerInDoubtException}).
     */
    LEADERSHIP_LOST("leadership lost", Cause.COORDINATION),
    /**
     * The checkpoint store refused the checkpoint for a reason that is not storage: for example its id
     * is at or below the latest retained one (the id counter was lost or reset). Not a storage outage
     * and not the tasks' fault; the job master takes the next id above every retained one, so it does
     * not repeat.
     */
    REJECTED("rejected", Cause.COORDINATION);

    /** Who is to blame for a failure. */
    public enum Cause {
        /** Checkpoint storage or the HA services: restarting tasks does not help. */
        STORAGE,
        /** The task's own code or state: a restart may help; counted towards the tolerance. */
        TASK,
        /** The job master itself (leadership changes): not a failure of the job. */
        COORDINATION
    }

    private final String label;
    private final Cause cause;

    CheckpointFailureReason(String label, Cause cause) {
        this.label = label;
        this.cause = cause;
    }

    /** Short lower-case name used in status messages, for example {@code "storage"}. */
    public String label() {
        return label;
    }

    public Cause cause() {
        return cause;
    }

    /** Whether this failure counts towards {@code checkpoints.tolerable-failures}. */
    public boolean countsTowardsTolerance() {
        return cause == Cause.TASK;
    }

    /**
     * The reason of a task's decline: {@link #STORAGE} if {@code declineCause} or any of its causes
     * is a storage error ({@link StorageException}, an {@link IOException}, or a timeout of a storage
     * call), else {@link #TASK_DECLINED}.
     */
    public static CheckpointFailureReason ofDecline(Throwable declineCause) {
        return isStorageFailure(declineCause) ? STORAGE : TASK_DECLINED;
    }

    /**
     * The reason of a failed finalization (metadata or pointer write) that is not a loss of
     * leadership: {@link #STORAGE} if {@code cause} or one of its causes is a storage error, else
     * {@link #REJECTED} (the store refused the checkpoint itself, as an id that does not increase).
     */
    public static CheckpointFailureReason ofFinalization(Throwable cause) {
        return isStorageFailure(cause) || cause instanceof CheckpointPointerInDoubtException ? STORAGE : REJECTED;
    }

    /** Whether {@code t} or one of its causes is a storage error. */
    public static boolean isStorageFailure(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof StorageException || c instanceof IOException || c instanceof UncheckedIOException
                    || c instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }
}
