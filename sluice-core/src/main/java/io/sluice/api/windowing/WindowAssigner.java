package io.sluice.api.windowing;

import io.sluice.api.errors.InvalidJobException;
import java.io.Serializable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Puts each record into windows: tumbling (fixed size, no overlap), sliding (fixed size, a new one
 * every slide) or session (a gap of inactivity closes the session; overlapping sessions merge), in
 * event time (the record's timestamp, fired by the watermark) or processing time (the task's clock
 * when the record arrives). Immutable; create with the static methods.
 */
public final class WindowAssigner implements Serializable {
    enum Kind { TUMBLING, SLIDING, SESSION }

    private final Kind kind;
    private final long size;
    private final long slide;
    private final boolean eventTime;

    private WindowAssigner(Kind kind, Duration size, Duration slide, boolean eventTime) {
        this.kind = kind;
        this.size = size.toMillis();
        this.slide = slide.toMillis();
        this.eventTime = eventTime;
    }

    public static WindowAssigner tumblingEventTime(Duration size) {
        return new WindowAssigner(Kind.TUMBLING, size, size, true);
    }

    public static WindowAssigner tumblingProcessingTime(Duration size) {
        return new WindowAssigner(Kind.TUMBLING, size, size, false);
    }

    public static WindowAssigner slidingEventTime(Duration size, Duration slide) {
        return new WindowAssigner(Kind.SLIDING, size, slide, true);
    }

    public static WindowAssigner slidingProcessingTime(Duration size, Duration slide) {
        return new WindowAssigner(Kind.SLIDING, size, slide, false);
    }

    /** Sessions: a record opens {@code [t, t + gap)}; windows that overlap merge. */
    public static WindowAssigner sessionEventTime(Duration gap) {
        return new WindowAssigner(Kind.SESSION, gap, gap, true);
    }

    public static WindowAssigner sessionProcessingTime(Duration gap) {
        return new WindowAssigner(Kind.SESSION, gap, gap, false);
    }

    public boolean isEventTime() {
        return eventTime;
    }

    public boolean isMerging() {
        return kind == Kind.SESSION;
    }

    /** The windows of a record at {@code timestamp} (for sessions, its own window, before merging). */
    public List<TimeWindow> assignWindows(long timestamp) {
        if (kind == Kind.SESSION) {
            return List.of(new TimeWindow(timestamp, timestamp + size));
        }
        List<TimeWindow> windows = new ArrayList<>((int) (size / slide) + 1);
        long lastStart = timestamp - Math.floorMod(timestamp, slide);
        for (long start = lastStart; start > timestamp - size; start -= slide) {
            windows.add(new TimeWindow(start, start + size));
        }
        return windows;
    }

    /** Checks the settings for the job graph builder; {@link InvalidJobException} naming the operator and the fix. */
    public void validate(String operatorName) {
        String what = kind == Kind.SESSION ? "session gap" : "window size";
        if (size <= 0) {
            throw new InvalidJobException("Operator '" + operatorName + "': the " + what + " is " + size
                    + " ms; it must be positive (at least 1 ms), for example Duration.ofSeconds(1).");
        }
        if (kind == Kind.SLIDING) {
            if (slide <= 0) {
                throw new InvalidJobException("Operator '" + operatorName + "': the slide is " + slide
                        + " ms; it must be positive (at least 1 ms).");
            }
            if (slide > size) {
                throw new InvalidJobException("Operator '" + operatorName + "': the slide (" + slide
                        + " ms) is larger than the window size (" + size + " ms), so records between windows would"
                        + " be lost. Use a slide at most the size, or tumbling windows for slide = size.");
            }
        }
    }

    @Override
    public String toString() {
        return (eventTime ? "event-time " : "processing-time ") + kind.name().toLowerCase() + " " + size + " ms"
                + (kind == Kind.SLIDING ? " every " + slide + " ms" : "");
    }
}
