package io.sluice.operators.timers;

import io.sluice.state.KeyedStateBackend;
import org.jspecify.annotations.Nullable;

/**
 * The event-time and processing-time timers of one keyed operator, over its keyed state (see
 * {@link TimerQueue}). Task thread only.
 */
public final class KeyedTimers {
    /** A fired timer: its time, key and domain. */
    public record Fired(long time, Object key, boolean eventTime) {
    }

    private final TimerQueue eventTime;
    private final TimerQueue processingTime;

    /** @param prefix makes the state names unique within the operator's backend */
    public KeyedTimers(KeyedStateBackend backend, String prefix) {
        this.eventTime = new TimerQueue(backend, prefix + ".event-time-timers");
        this.processingTime = new TimerQueue(backend, prefix + ".processing-time-timers");
        eventTime.rebuild();
        processingTime.rebuild();
    }

    public void registerEventTime(long time) {
        eventTime.register(time);
    }

    public void deleteEventTime(long time) {
        eventTime.delete(time);
    }

    public void registerProcessingTime(long time) {
        processingTime.register(time);
    }

    public void deleteProcessingTime(long time) {
        processingTime.delete(time);
    }

    /** The next event-time timer at or before {@code watermark}, current key set to its key; or {@code null}. */
    public @Nullable Fired nextEventTime(long watermark) {
        Timer t = eventTime.pollDue(watermark);
        return t == null ? null : new Fired(t.time(), t.key(), true);
    }

    /** The next processing-time timer at or before {@code now}, current key set to its key; or {@code null}. */
    public @Nullable Fired nextProcessingTime(long now) {
        Timer t = processingTime.pollDue(now);
        return t == null ? null : new Fired(t.time(), t.key(), false);
    }

    /** The time of the earliest processing-time timer, or {@link Long#MAX_VALUE} if there is none. */
    public long nextProcessingTimeDue() {
        return processingTime.earliestTime();
    }

    public int pendingEventTimeTimers() {
        return eventTime.size();
    }

    public int pendingProcessingTimeTimers() {
        return processingTime.size();
    }
}
