package io.sluice.api.state;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * The time-to-live of a keyed state's values ({@link StateDescriptor#enableTimeToLive}): a value that
 * was not written (or read, see {@link UpdateType}) for {@link #ttl()} of processing time expires.
 * Expired values are never returned ({@link Visibility#NEVER_RETURN_EXPIRED}, the default) and are
 * removed in the background: as the task processes records it looks at a few entries of each state
 * with a time-to-live (on the heap and in RocksDB alike), and a read that finds an expired value
 * removes it. For list state the time counts per element, for map state per map entry.
 *
 * <pre>{@code
 * ValueStateDescriptor<Long> lastSeen = new ValueStateDescriptor<>("last-seen", Serializers.LONG);
 * lastSeen.enableTimeToLive(StateTtlConfig.newBuilder(Duration.ofHours(24)).build());
 * }</pre>
 *
 * <p>Time is the task's processing time (its clock). A value's timestamp is part of the state, in
 * checkpoints and savepoints, so it expires after a restore as it would have, and a move between
 * backends keeps it. Immutable.
 */
public final class StateTtlConfig implements Serializable {
    private static final long serialVersionUID = 1L;

    /** When a value's time starts again. */
    public enum UpdateType {
        /** When it is created or written (the default). */
        ON_CREATE_AND_WRITE,
        /** Also when it is read. */
        ON_READ_AND_WRITE
    }

    /** Whether an expired value that was not removed yet may still be read. */
    public enum Visibility {
        /** Never: a read of an expired value returns nothing (and removes it). The default. */
        NEVER_RETURN_EXPIRED,
        /** Yes, until the background clean-up removed it. */
        RETURN_EXPIRED_IF_NOT_CLEANED_UP
    }

    private final Duration ttl;
    private final UpdateType updateType;
    private final Visibility visibility;
    private final int cleanupEntriesPerStep;

    private StateTtlConfig(Builder b) {
        this.ttl = b.ttl;
        this.updateType = b.updateType;
        this.visibility = b.visibility;
        this.cleanupEntriesPerStep = b.cleanupEntriesPerStep;
    }

    /** A configuration with time-to-live {@code ttl} (at least 1 ms) and the defaults otherwise. */
    public static Builder newBuilder(Duration ttl) {
        return new Builder(ttl);
    }

    public Duration ttl() {
        return ttl;
    }

    public UpdateType updateType() {
        return updateType;
    }

    public Visibility visibility() {
        return visibility;
    }

    /**
     * How many entries of the state the background clean-up looks at per step (a step every
     * {@value #RECORDS_PER_CLEANUP_STEP} records the task processes); 0 turns the background clean-up off
     * (expired values are then removed only when read). Default {@value #DEFAULT_CLEANUP_ENTRIES_PER_STEP}.
     */
    public int cleanupEntriesPerStep() {
        return cleanupEntriesPerStep;
    }

    /** A clean-up step runs every this many records (key changes) of the task. */
    public static final int RECORDS_PER_CLEANUP_STEP = 64;
    /** Entries looked at per clean-up step, by default: about a quarter of an entry per record. */
    public static final int DEFAULT_CLEANUP_ENTRIES_PER_STEP = 16;

    @Override
    public boolean equals(Object o) {
        return o instanceof StateTtlConfig c && ttl.equals(c.ttl) && updateType == c.updateType
                && visibility == c.visibility && cleanupEntriesPerStep == c.cleanupEntriesPerStep;
    }

    @Override
    public int hashCode() {
        return Objects.hash(ttl, updateType, visibility, cleanupEntriesPerStep);
    }

    @Override
    public String toString() {
        return "StateTtlConfig{ttl=" + ttl + ", " + updateType + ", " + visibility + ", cleanup "
                + cleanupEntriesPerStep + " entries per step}";
    }

    /** Builds a {@link StateTtlConfig}. Not thread-safe. */
    public static final class Builder {
        private final Duration ttl;
        private UpdateType updateType = UpdateType.ON_CREATE_AND_WRITE;
        private Visibility visibility = Visibility.NEVER_RETURN_EXPIRED;
        private int cleanupEntriesPerStep = DEFAULT_CLEANUP_ENTRIES_PER_STEP;

        private Builder(Duration ttl) {
            this.ttl = Objects.requireNonNull(ttl, "ttl");
            if (ttl.toMillis() < 1) {
                throw new IllegalArgumentException("A state's time-to-live must be at least 1 ms, got " + ttl);
            }
        }

        public Builder updateType(UpdateType type) {
            this.updateType = Objects.requireNonNull(type, "type");
            return this;
        }

        public Builder visibility(Visibility visibility) {
            this.visibility = Objects.requireNonNull(visibility, "visibility");
            return this;
        }

        /** See {@link StateTtlConfig#cleanupEntriesPerStep()}; 0 turns the background clean-up off. */
        public Builder cleanupEntriesPerStep(int entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("Clean-up entries per step must be >= 0, got " + entries);
            }
            this.cleanupEntriesPerStep = entries;
            return this;
        }

        public StateTtlConfig build() {
            return new StateTtlConfig(this);
        }
    }
}
