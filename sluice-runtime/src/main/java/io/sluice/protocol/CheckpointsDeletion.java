package io.sluice.protocol;

import io.sluice.graph.JobId;
import java.util.List;

/**
 * What deleting an ended job's retained checkpoints removed (on request, or when they expired).
 *
 * @param location              the checkpoint storage location they were in, or {@code null} when the job's result
 *                              did not record one (written before Sluice recorded it: only its HA pointers were removed)
 * @param deletedCheckpointIds  ids of the completed checkpoints whose files were deleted, ascending; everything else
 *                              under {@code <location>/<jobId>/} was deleted too
 */
public record CheckpointsDeletion(JobId jobId, String location, List<Long> deletedCheckpointIds)
        implements java.io.Serializable {
    public CheckpointsDeletion {
        deletedCheckpointIds = List.copyOf(deletedCheckpointIds);
    }
}
