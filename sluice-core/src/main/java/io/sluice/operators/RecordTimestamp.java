package io.sluice.operators;

/**
 * The event timestamp of the record a task's operator chain is processing. One instance per task,
 * shared by its whole chain: the input sets it before each record of a timestamped channel (and the
 * timestamp assigner when it stamps a record), operators that emit with a time of their own (timers,
 * windows) set it before emitting, and the record writers of timestamped edges read it.
 * {@link #NONE} means the record has no timestamp. Task-thread only; not thread-safe.
 */
public final class RecordTimestamp {
    /** The value of a record without a timestamp. */
    public static final long NONE = Long.MIN_VALUE;

    private long value = NONE;

    public long get() {
        return value;
    }

    public void set(long timestamp) {
        this.value = timestamp;
    }

    public boolean isSet() {
        return value != NONE;
    }
}
