package io.sluice.network;

/**
 * Separates the records before checkpoint {@code checkpointId} from those after it. Immutable;
 * safe to share between threads.
 *
 * @param savepoint whether the checkpoint is a savepoint: every task then takes a full snapshot in the
 *                  canonical format (never an incremental one), which every state backend restores
 */
public record CheckpointBarrier(long checkpointId, long timestampMillis, boolean savepoint) implements NetworkEvent {
    public CheckpointBarrier {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("A checkpoint id is not negative, not " + checkpointId);
        }
    }

    /** The barrier of a (periodic) checkpoint, not a savepoint. */
    public CheckpointBarrier(long checkpointId, long timestampMillis) {
        this(checkpointId, timestampMillis, false);
    }
}
