package io.sluice.state.ttl;

import io.sluice.api.state.StateTtlConfig;
import io.sluice.core.serialization.TimestampedValue;
import io.sluice.util.Clock;

/**
 * When a value of one state with a time-to-live expires: {@code timestamp + ttl <= now}, in the
 * task's processing time. Immutable; the clock is the task's.
 */
final class Expiry {
    private final StateTtlConfig config;
    private final long ttlMillis;
    private final Clock clock;

    Expiry(StateTtlConfig config, Clock clock) {
        this.config = config;
        this.ttlMillis = config.ttl().toMillis();
        this.clock = clock;
    }

    long now() {
        return clock.currentTimeMillis();
    }

    /** Values stamped at or before this instant have expired by {@code now}. */
    long cutoff(long now) {
        return now - ttlMillis;
    }

    boolean expired(TimestampedValue<?> v, long now) {
        return v.timestampMillis() <= cutoff(now);
    }

    /** Whether a read of an expired value returns nothing. */
    boolean hidesExpired() {
        return config.visibility() == StateTtlConfig.Visibility.NEVER_RETURN_EXPIRED;
    }

    boolean refreshOnRead() {
        return config.updateType() == StateTtlConfig.UpdateType.ON_READ_AND_WRITE;
    }
}
