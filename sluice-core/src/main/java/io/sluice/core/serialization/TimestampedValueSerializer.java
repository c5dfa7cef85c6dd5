package io.sluice.core.serialization;

import java.util.List;
import java.util.Objects;

/**
 * Writes a {@link TimestampedValue}: the timestamp (8 bytes, first, so a store can read it without
 * decoding the value), then the value with the nested serializer. Stable id {@value #ID}, version 1:
 * snapshots record a state with a time-to-live by it, which is how a restore tells that a state
 * gained or lost its time-to-live. Stateless.
 */
final class TimestampedValueSerializer<T> implements TypeSerializer<TimestampedValue<T>> {
    static final String ID = "sluice.ttl";
    private static final long serialVersionUID = 1L;

    private final TypeSerializer<T> valueSerializer;

    TimestampedValueSerializer(TypeSerializer<T> valueSerializer) {
        this.valueSerializer = Objects.requireNonNull(valueSerializer, "valueSerializer");
    }

    @Override
    public void serialize(TimestampedValue<T> value, DataOutputBuffer out) {
        out.writeLong(value.timestampMillis());
        valueSerializer.serialize(value.value(), out);
    }

    @Override
    public TimestampedValue<T> deserialize(DataInputBuffer in) {
        long timestamp = in.readLong();
        return new TimestampedValue<>(valueSerializer.deserialize(in), timestamp);
    }

    /** The value itself when its value's copy is (an immutable value): so containers of them are shared by snapshots. */
    @Override
    public TimestampedValue<T> copy(TimestampedValue<T> value) {
        if (value == null) {
            return null;
        }
        T copied = valueSerializer.copy(value.value());
        return copied == value.value() ? value : new TimestampedValue<>(copied, value.timestampMillis());
    }

    @Override
    public String typeName() {
        return "Timestamped<" + valueSerializer.typeName() + ">";
    }

    @Override
    public SerializerIdentity identity() {
        return new SerializerIdentity(ID, 1, null, List.of(valueSerializer));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TimestampedValueSerializer<?> s && valueSerializer.equals(s.valueSerializer);
    }

    @Override
    public int hashCode() {
        return valueSerializer.hashCode() * 31 + 7;
    }
}
