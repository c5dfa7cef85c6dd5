package io.sluice.restart;

import java.time.Instant;

/**
 * A job that fails the same way on consecutive attempts, as its status shows it: "crash loop: the
 * same error N times since T". Found by {@link CrashLoopDetector}. Immutable.
 *
 * @param count               consecutive failures with the same (normalised) cause, at least
 *                            {@link CrashLoopDetector#THRESHOLD}
 * @param sinceMillis         wall-clock time of the first of them
 * @param lastMillis          wall-clock time of the latest
 * @param cause               the latest failure's root cause, {@code "ExceptionClass: message"}
 * @param origin              where it was thrown: the vertex and the top stack frame, or {@code null}
 * @param kind                what the loop is, and so how it is retried
 * @param restoreCheckpointId the checkpoint every attempt failed to restore from, or -1 (a processing failure, or a
 *                            restore that failed from every retained checkpoint)
 * @param advice              what the operator can do, in one or two sentences
 */
public record CrashLoop(int count, long sinceMillis, long lastMillis, String cause, String origin, Kind kind,
                        long restoreCheckpointId, String advice) implements java.io.Serializable {

    /** What a crash loop is. */
    public enum Kind {
        /** The tasks fail the same way while processing: retried at the restart strategy's pace. */
        PROCESSING,
        /**
         * The tasks fail the same way while restoring, with a cause that looks transient (storage, a
         * lost task manager): retried at the restart strategy's pace.
         */
        RESTORE,
        /**
         * Restoring fails the same deterministic way on every attempt (a key in the
         * wrong key group, a class or serializer that is missing, a state format this code cannot read):
         * no restart fixes it. The job keeps its checkpoints and retries only at a slow pace
         * ({@link CrashLoopDetector#SLOW_RETRY}), so that a fix of the cluster (a class added) is still
         * picked up by itself.
         */
        RESTORE_NEVER_SUCCEEDS
    }

    /** Whether no restart can fix it: the job is retried only at the slow pace. */
    public boolean restoreNeverSucceeds() {
        return kind == Kind.RESTORE_NEVER_SUCCEEDS;
    }

    /**
     * One line for lists and logs: {@code "crash loop: the same error 5 times since 2026-12-03T06:40:00Z:
     * <cause>"}, with "restore from checkpoint 7 can never succeed" before the cause when it cannot.
     */
    public String summary() {
        String what = switch (kind) {
            case RESTORE_NEVER_SUCCEEDS -> "restore from " + checkpointName(restoreCheckpointId) + " can never succeed: ";
            case RESTORE -> "restore from " + checkpointName(restoreCheckpointId) + " fails: ";
            case PROCESSING -> "";
        };
        return "crash loop: the same error " + count + " times since " + Instant.ofEpochMilli(sinceMillis) + ": "
                + what + cause;
    }

    /** {@code "checkpoint 7"}, or {@code "any retained checkpoint"} for -1. */
    static String checkpointName(long checkpointId) {
        return checkpointId >= 0 ? "checkpoint " + checkpointId : "any retained checkpoint";
    }
}
