package io.sluice.checkpoint;

/**
 * Checkpoint counters of a job, as shown in its status.
 *
 * @param latestCompletedId  -1 when none
 * @param lastFailure        message of the last failed checkpoint, or {@code null}
 */
public record CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                              long latestCompletedAtMillis, long latestDurationMillis, String lastFailure) {
    public static final CheckpointStats NONE = new CheckpointStats(0, 0, 0, -1, 0, 0, null);
}
