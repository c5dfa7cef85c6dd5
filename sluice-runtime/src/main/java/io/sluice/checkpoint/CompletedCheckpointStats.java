package io.sluice.checkpoint;

/**
 * What one completed checkpoint cost, as its {@link io.sluice.checkpoint.coordinator.CheckpointCoordinator} saw it. Immutable.
 *
 * @param checkpointId           the checkpoint
 * @param triggerTimestampMillis wall-clock time of the trigger
 * @param durationNanos          from the trigger (the pending checkpoint created, its id already taken) to
 *                               completion (every task acknowledged, metadata and pointer written), on the
 *                               coordinator's clock
 * @param stateBytes             the full size of the checkpoint's state: the bytes of all its state files
 *                               (source positions, kept inline in the metadata, are not counted)
 * @param inline                 whether the checkpoint has no state files: all its state is inline in its
 *                               {@code _metadata}, the only blob it wrote
 */
public record CompletedCheckpointStats(long checkpointId, long triggerTimestampMillis, long durationNanos,
                                       long stateBytes, boolean inline) implements java.io.Serializable {

    /** Not marked inline. */
    public CompletedCheckpointStats(long checkpointId, long triggerTimestampMillis, long durationNanos, long stateBytes) {
        this(checkpointId, triggerTimestampMillis, durationNanos, stateBytes, false);
    }

    public double durationMillis() {
        return durationNanos / 1e6;
    }
}
