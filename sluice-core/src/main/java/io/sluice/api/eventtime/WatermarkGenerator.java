package io.sluice.api.eventtime;

/**
 * Tracks the timestamps a subtask has seen and says how far event time has progressed. One per
 * subtask, created by {@link WatermarkStrategy#createGenerator()}; task-thread only.
 */
public interface WatermarkGenerator {
    /** A record with event timestamp {@code timestamp} was seen. */
    void onEvent(long timestamp);

    /**
     * The current watermark: no record with a timestamp at or below it is expected any more.
     * {@link Long#MIN_VALUE} before the first record.
     */
    long currentWatermark();
}
