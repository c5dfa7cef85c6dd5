package io.sluice.api.functions;

/**
 * Time and timers of a {@link KeyedProcessFunction}, for the current key. Timers are deduplicated
 * per key and time (registering the same one twice fires it once) and are keyed state: they are
 * part of checkpoints and restored with the rest of the state. Task thread only.
 */
public interface TimerService {
    /** Processing time: the task's clock, wall-clock milliseconds. */
    long currentProcessingTime();

    /** The operator's current event-time watermark ({@link Long#MIN_VALUE} before the first). */
    long currentWatermark();

    /** Fires {@code onTimer} once the watermark reaches {@code time} (at or past it). */
    void registerEventTimeTimer(long time);

    /** Fires {@code onTimer} once processing time reaches {@code time}, also if that happened while the job was down. */
    void registerProcessingTimeTimer(long time);

    void deleteEventTimeTimer(long time);

    void deleteProcessingTimeTimer(long time);
}
