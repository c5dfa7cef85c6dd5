package io.sluice.network;

/**
 * Separates the records before checkpoint {@code checkpointId} from those after it. Immutable;
 * safe to share between threads.
 */
public record CheckpointBarrier(long checkpointId, long timestampMillis) implements NetworkEvent {
    public CheckpointBarrier {
        if (checkpointId < 0) {
            throw new IllegalArgumentException("A checkpoint id is not negative, not " + checkpointId);
        }
    }
}
