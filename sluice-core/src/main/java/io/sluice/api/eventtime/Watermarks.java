package io.sluice.api.eventtime;

/** Constants of event time. */
public final class Watermarks {
    /** The watermark before any: every timestamp is still ahead. */
    public static final long MIN = Long.MIN_VALUE;
    /** The final watermark, at the end of a bounded input: event time is over, every event-time timer fires. */
    public static final long MAX = Long.MAX_VALUE;

    private Watermarks() {}
}
