package io.sluice.core.serialization;

/**
 * A value with the time it was last written (or read), in milliseconds: what a keyed state with a
 * time-to-live stores ({@link Serializers#timestamped}). Immutable itself; {@code value} is the
 * user's object.
 */
public record TimestampedValue<T>(T value, long timestampMillis) {
}
