package io.sluice.state.ttl;

import io.sluice.api.state.ListState;
import io.sluice.core.serialization.TimestampedValue;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A {@link ListState} with a time-to-live per element, over any backend's list state of
 * timestamped elements. A read drops the expired elements from the state and returns the others.
 * Task thread only.
 */
final class TtlListState<T> implements ListState<T> {
    private final ListState<TimestampedValue<T>> internal;
    private final Expiry expiry;
    private final String name;

    TtlListState(ListState<TimestampedValue<T>> internal, Expiry expiry, String name) {
        this.internal = internal;
        this.expiry = expiry;
        this.name = name;
    }

    @Override
    public Iterable<T> get() {
        long now = expiry.now();
        List<TimestampedValue<T>> kept = new ArrayList<>();
        List<T> values = new ArrayList<>();
        boolean dropped = false;
        for (TimestampedValue<T> v : internal.get()) {
            if (expiry.expired(v, now) && expiry.hidesExpired()) {
                dropped = true;
                continue;
            }
            kept.add(expiry.refreshOnRead() ? new TimestampedValue<>(v.value(), now) : v);
            values.add(v.value());
        }
        if (dropped || (expiry.refreshOnRead() && !kept.isEmpty())) {
            internal.update(kept);
        }
        return Collections.unmodifiableList(values);
    }

    @Override
    public void add(T value) {
        internal.add(new TimestampedValue<>(requireElement(value), expiry.now()));
    }

    @Override
    public void update(List<T> values) {
        if (values == null || values.isEmpty()) {
            internal.clear();
            return;
        }
        long now = expiry.now();
        List<TimestampedValue<T>> stamped = new ArrayList<>(values.size());
        for (T v : values) {
            stamped.add(new TimestampedValue<>(requireElement(v), now));
        }
        internal.update(stamped);
    }

    @Override
    public void clear() {
        internal.clear();
    }

    private T requireElement(T value) {
        return Objects.requireNonNull(value, () -> "List state '" + name
                + "' does not hold null elements; filter nulls out before adding them");
    }
}
