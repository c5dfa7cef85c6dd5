package io.sluice.checkpoint;

/**
 * Told by a {@link io.sluice.checkpoint.coordinator.CheckpointCoordinator} of every completed and every failed checkpoint, in the
 * same places its {@link CheckpointStats} counters change, so that metrics match those counters.
 * Called on the job master's main thread; must not block.
 */
public interface CheckpointMetricsListener {
    CheckpointMetricsListener NONE = new CheckpointMetricsListener() {
        @Override
        public void checkpointCompleted(CompletedCheckpointStats stats) {
        }

        @Override
        public void checkpointFailed() {
        }
    };

    void checkpointCompleted(CompletedCheckpointStats stats);

    void checkpointFailed();

    /**
     * Checkpoints started failing at {@code sinceMillis} (wall clock, the first failure since the
     * last completion), or succeed again ({@code -1}): the "checkpoints failing since T" of
     * {@link CheckpointStats#failingSinceMillis}, told each time it changes.
     */
    default void failingSinceChanged(long sinceMillis) {
    }
}
