package io.sluice.rest.model;

import io.sluice.protocol.CheckpointsDeletion;
import java.util.List;

/**
 * {@code DELETE /v1/jobs/{jobId}/checkpoints}: what was deleted.
 *
 * @param location             the checkpoint storage location, or null when the job's result named none (only its
 *                             HA pointers were removed)
 * @param deletedCheckpointIds the completed checkpoints whose files were deleted; everything else under the job's
 *                             checkpoint directory went too
 */
public record CheckpointsDeletedView(String jobId, String location, List<Long> deletedCheckpointIds) {
    public CheckpointsDeletedView {
        deletedCheckpointIds = List.copyOf(deletedCheckpointIds);
    }

    public static CheckpointsDeletedView of(CheckpointsDeletion d) {
        return new CheckpointsDeletedView(d.jobId().value(), d.location(), d.deletedCheckpointIds());
    }
}
