package io.sluice.ha.embedded;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CompletedCheckpoint;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import java.util.List;

/** Writes real checkpoints (a state file and the metadata) through a {@link CheckpointStorage}. */
final class CheckpointTestSupport {
    private CheckpointTestSupport() {}

    /** Writes checkpoint {@code id} of {@code job} and returns it with its metadata path. */
    static CompletedCheckpoint writeCheckpoint(CheckpointStorage storage, JobId job, long id) {
        String state = storage.writeTaskState(job, id, 0, 0, new byte[] {(byte) id, 1, 2});
        CompletedCheckpoint cp = new CompletedCheckpoint(job, id, 1000 + id, 2000 + id,
                List.of(new TaskStateHandle(0, 0, state, 3, new byte[] {(byte) id}, null)), null);
        return cp.withMetadataPath(storage.writeMetadata(cp));
    }
}
