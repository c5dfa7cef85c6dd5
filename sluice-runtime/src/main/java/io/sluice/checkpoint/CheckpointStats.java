package io.sluice.checkpoint;

import java.util.List;

/**
 * Checkpoint counters of a job, as shown in its status. Immutable.
 *
 * @param latestCompletedId     -1 when none
 * @param latestDurationMillis  trigger to completion of the latest completed checkpoint, in whole milliseconds
 * @param lastFailure           message of the last failed checkpoint, or {@code null}
 * @param recent                the most recently completed checkpoints of the current job master, oldest
 *                              first, at most {@link #RECENT_LIMIT}; per checkpoint its duration and state size
 * @param restoredCheckpointId  the checkpoint the current deployment restored from, -1 when it started empty
 * @param failingSinceMillis    wall-clock time of the first of the current consecutive checkpoint failures,
 *                              -1 while the latest checkpoint did not fail
 */
public record CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                              long latestCompletedAtMillis, long latestDurationMillis, String lastFailure,
                              List<CompletedCheckpointStats> recent, long restoredCheckpointId, long failingSinceMillis) {
    /** How many completed checkpoints {@link #recent} keeps. */
    public static final int RECENT_LIMIT = 16;

    public static final CheckpointStats NONE = new CheckpointStats(0, 0, 0, -1, 0, 0, null, List.of());

    public CheckpointStats {
        recent = List.copyOf(recent);
    }

    /** Without the restored checkpoint and the failing-since time (both -1). */
    public CheckpointStats(long completed, long failed, long consecutiveFailures, long latestCompletedId,
                           long latestCompletedAtMillis, long latestDurationMillis, String lastFailure,
                           List<CompletedCheckpointStats> recent) {
        this(completed, failed, consecutiveFailures, latestCompletedId, latestCompletedAtMillis, latestDurationMillis,
                lastFailure, recent, -1, -1);
    }
}
