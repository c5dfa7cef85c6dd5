package io.sluice.api.windowing;

/**
 * A window of time {@code [start, end)} in milliseconds. Its records have timestamps up to
 * {@link #maxTimestamp()}, which is also the timestamp of its results. Immutable.
 */
public record TimeWindow(long start, long end) {
    public TimeWindow {
        if (end <= start) {
            throw new IllegalArgumentException("A window ends after it starts: [" + start + ", " + end + ")");
        }
    }

    public long maxTimestamp() {
        return end - 1;
    }

    /** Whether the two windows share a millisecond (sessions that do merge; merely adjacent ones do not). */
    public boolean intersects(TimeWindow other) {
        return start < other.end && other.start < end;
    }

    public TimeWindow cover(TimeWindow other) {
        return new TimeWindow(Math.min(start, other.start), Math.max(end, other.end));
    }
}
