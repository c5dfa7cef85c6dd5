package io.sluice.connector.kafka;

import java.io.Serializable;

/**
 * Where a partition without a position in the restored checkpoint starts (a fresh job, or a partition the
 * checkpoint did not know). A restored position always wins. Immutable.
 */
public final class StartingOffsets implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The kinds of starting point. */
    public enum Kind { EARLIEST, LATEST, TIMESTAMP, COMMITTED }

    private final Kind kind;
    private final long timestampMillis;

    private StartingOffsets(Kind kind, long timestampMillis) {
        this.kind = kind;
        this.timestampMillis = timestampMillis;
    }

    /** The oldest record still in the partition (the default). */
    public static StartingOffsets earliest() {
        return new StartingOffsets(Kind.EARLIEST, -1);
    }

    /** Only records written after the source started. */
    public static StartingOffsets latest() {
        return new StartingOffsets(Kind.LATEST, -1);
    }

    /** The first record whose timestamp is at or after {@code epochMillis}; the end where there is none. */
    public static StartingOffsets timestamp(long epochMillis) {
        if (epochMillis < 0) {
            throw new IllegalArgumentException("A starting timestamp must not be negative, was " + epochMillis);
        }
        return new StartingOffsets(Kind.TIMESTAMP, epochMillis);
    }

    /**
     * The offsets committed to the source's consumer group (needs {@code groupId}); the earliest record
     * where the group has none.
     */
    public static StartingOffsets committed() {
        return new StartingOffsets(Kind.COMMITTED, -1);
    }

    public Kind kind() {
        return kind;
    }

    public long timestampMillis() {
        return timestampMillis;
    }

    @Override
    public String toString() {
        return kind == Kind.TIMESTAMP ? "timestamp " + timestampMillis : kind.name().toLowerCase(java.util.Locale.ROOT);
    }
}
