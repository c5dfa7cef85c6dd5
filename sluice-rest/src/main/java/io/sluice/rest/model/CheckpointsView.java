package io.sluice.rest.model;

import io.sluice.checkpoint.CheckpointStats;
import io.sluice.checkpoint.CompletedCheckpointStats;
import java.util.List;

/**
 * {@code GET /v1/jobs/{jobId}/checkpoints}: checkpoint counters and the recent completed checkpoints
 * of the job's current job master, newest first.
 *
 * @param restoredId the checkpoint the current deployment restored from, or {@code null} if none
 */
public record CheckpointsView(long completed, long failed, long latestId, String lastFailure, Long failingSinceMillis,
                              Long restoredId, List<Entry> history) {

    /**
     * @param inline   whether all of its state is inline in the metadata (the checkpoint is one {@code _metadata} blob)
     * @param restored whether the current deployment restored from it
     */
    public record Entry(long id, long triggerTimestampMillis, double durationMillis, long sizeBytes, boolean inline,
                        boolean restored) {
    }

    public static CheckpointsView of(CheckpointStats c) {
        List<CompletedCheckpointStats> recent = c.recent();
        List<Entry> history = new java.util.ArrayList<>();
        for (int i = recent.size() - 1; i >= 0; i--) {
            CompletedCheckpointStats s = recent.get(i);
            history.add(new Entry(s.checkpointId(), s.triggerTimestampMillis(), s.durationMillis(), s.stateBytes(),
                    s.inline(), s.checkpointId() == c.restoredCheckpointId()));
        }
        return new CheckpointsView(c.completed(), c.failed(), c.latestCompletedId(), c.lastFailure(),
                c.failingSinceMillis() < 0 ? null : c.failingSinceMillis(),
                c.restoredCheckpointId() < 0 ? null : c.restoredCheckpointId(), history);
    }
}
