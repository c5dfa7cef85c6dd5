package io.sluice.state.ttl;

import io.sluice.api.state.ValueState;
import io.sluice.core.serialization.TimestampedValue;

/**
 * A {@link ValueState} with a time-to-live over any backend's value state of timestamped values. A
 * read that finds an expired value removes it and returns {@code null}. Task thread only.
 */
final class TtlValueState<T> implements ValueState<T> {
    private final ValueState<TimestampedValue<T>> internal;
    private final Expiry expiry;

    TtlValueState(ValueState<TimestampedValue<T>> internal, Expiry expiry) {
        this.internal = internal;
        this.expiry = expiry;
    }

    @Override
    public T value() {
        TimestampedValue<T> v = internal.value();
        if (v == null) {
            return null;
        }
        long now = expiry.now();
        if (expiry.expired(v, now)) {
            if (expiry.hidesExpired()) {
                internal.clear();
                return null;
            }
            return v.value();
        }
        if (expiry.refreshOnRead()) {
            internal.update(new TimestampedValue<>(v.value(), now));
        }
        return v.value();
    }

    @Override
    public void update(T value) {
        if (value == null) {
            internal.clear();
        } else {
            internal.update(new TimestampedValue<>(value, expiry.now()));
        }
    }

    @Override
    public void clear() {
        internal.clear();
    }
}
