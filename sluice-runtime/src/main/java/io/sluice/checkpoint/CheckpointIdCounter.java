package io.sluice.checkpoint;

/**
 * Hands out checkpoint ids that never repeat for a job, across restarts and leaders.
 * Blocking (may talk to an HA store); called from an I/O executor.
 */
public interface CheckpointIdCounter {
    long getAndIncrement() throws Exception;

    /** The next id {@link #getAndIncrement()} would return, without taking it. */
    long peek() throws Exception;
}
