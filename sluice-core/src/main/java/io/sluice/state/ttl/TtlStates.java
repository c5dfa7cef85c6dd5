package io.sluice.state.ttl;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.StateTtlConfig;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TimestampedValue;
import io.sluice.util.Clock;

/**
 * State with a time-to-live, the same on every backend: a backend registers the state under the
 * descriptor's name with values wrapped in {@link TimestampedValue} ({@code sluice.ttl} around the
 * user's serializer: {@link #internal}), and hands the user a decorator ({@link #value}, {@link #list},
 * {@link #map}) that stamps writes, hides and removes expired values on reads, and that the
 * backend's {@link TtlCleaner} cleans in the background. Stateless.
 */
public final class TtlStates {
    private TtlStates() {}

    /** The descriptor a backend registers for a value state with a time-to-live. */
    public static <T> ValueStateDescriptor<TimestampedValue<T>> internal(ValueStateDescriptor<T> d) {
        return new ValueStateDescriptor<>(d.name(), Serializers.timestamped(d.serializer()));
    }

    /** The descriptor a backend registers for a list state with a time-to-live (timestamps per element). */
    public static <T> ListStateDescriptor<TimestampedValue<T>> internal(ListStateDescriptor<T> d) {
        return new ListStateDescriptor<>(d.name(), Serializers.timestamped(d.elementSerializer()));
    }

    /** The descriptor a backend registers for a map state with a time-to-live (timestamps per map entry). */
    public static <K, V> MapStateDescriptor<K, TimestampedValue<V>> internal(MapStateDescriptor<K, V> d) {
        return new MapStateDescriptor<>(d.name(), d.keySerializer(), Serializers.timestamped(d.valueSerializer()));
    }

    public static <T> ValueState<T> value(ValueState<TimestampedValue<T>> internal, StateTtlConfig config, Clock clock) {
        return new TtlValueState<>(internal, new Expiry(config, clock));
    }

    public static <T> ListState<T> list(ListState<TimestampedValue<T>> internal, StateTtlConfig config, Clock clock,
                                        String name) {
        return new TtlListState<>(internal, new Expiry(config, clock), name);
    }

    public static <K, V> MapState<K, V> map(MapState<K, TimestampedValue<V>> internal, StateTtlConfig config,
                                            Clock clock) {
        return new TtlMapState<>(internal, new Expiry(config, clock));
    }
}
