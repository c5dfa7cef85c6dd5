package io.sluice.checkpoint;

import java.time.Instant;
import java.util.List;

/**
 * Checkpoint counters of a job, as shown in its status. Immutable.
 *
 * @param consecutiveFailures   failed checkpoints since the last completed one, whatever their reason
 * @param latestCompletedId     -1 when none
 * @param latestDurationMillis  trigger to completion of the latest completed checkpoint, in whole milliseconds
 * @param lastFailure           message of the last failed checkpoint, or {@code null}
 * @param recent                the most recently completed checkpoints of the current job master, oldest
 *                              first, at most {@link #RECENT_LIMIT}; per checkpoint its duration and state size
 * @param failingSinceMillis    wall-clock time of the first failure (or of the trigger of a checkpoint that is
 *                              stuck) since the last completed checkpoint; -1 while checkpoints succeed
 * @param failingCause          what makes them fail (the last failure, or the stuck checkpoint), or {@code null}
 *                              while checkpoints succeed
 * @param restoredCheckpointId  the checkpoint the current deployment restored from, -1 when it started empty
 */
public record CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                              long latestCompletedAtMillis, long latestDurationMillis, String lastFailure,
                              List<CompletedCheckpointStats> recent, long failingSinceMillis, String failingCause,
                              long restoredCheckpointId) implements java.io.Serializable {
    /** How many completed checkpoints {@link #recent} keeps. */
    public static final int RECENT_LIMIT = 16;

    public static final CheckpointStats NONE = new CheckpointStats(0, 0, 0, -1, 0, 0, null, List.of());

    /** Stats of checkpoints that are not failing, of a deployment that restored nothing. */
    public CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                           long latestCompletedAtMillis, long latestDurationMillis, String lastFailure,
                           List<CompletedCheckpointStats> recent) {
        this(completed, failed, consecutiveFailures, latestCompletedId, latestCompletedAtMillis, latestDurationMillis,
                lastFailure, recent, -1, null, -1);
    }

    /** Without the restored checkpoint (-1). */
    public CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                           long latestCompletedAtMillis, long latestDurationMillis, String lastFailure,
                           List<CompletedCheckpointStats> recent, long failingSinceMillis, String failingCause) {
        this(completed, failed, consecutiveFailures, latestCompletedId, latestCompletedAtMillis, latestDurationMillis,
                lastFailure, recent, failingSinceMillis, failingCause, -1);
    }

    /** With the restored checkpoint and the failing-since time, but no failing cause (the last failure is it). */
    public CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                           long latestCompletedAtMillis, long latestDurationMillis, String lastFailure,
                           List<CompletedCheckpointStats> recent, long restoredCheckpointId, long failingSinceMillis) {
        this(completed, failed, consecutiveFailures, latestCompletedId, latestCompletedAtMillis, latestDurationMillis,
                lastFailure, recent, failingSinceMillis, failingSinceMillis >= 0 ? lastFailure : null,
                restoredCheckpointId);
    }

    public CheckpointStats {
        recent = List.copyOf(recent);
    }

    /** Whether checkpoints currently fail (or are stuck). */
    public boolean failing() {
        return failingSinceMillis >= 0;
    }

    /** {@code "checkpoints failing since 2026-12-01T10:00:00Z: <cause>"}, or {@code null} while they succeed. */
    public String failingSummary() {
        return failing() ? "checkpoints failing since " + Instant.ofEpochMilli(failingSinceMillis) + ": " + failingCause
                : null;
    }
}
