package io.sluice.connector.kafka.format;

import java.io.Serializable;

/**
 * Turns the bytes of a Kafka record's value (or key) into a record of type {@code T}, and back.
 * Instances travel in the job graph and must be stateless (or hold immutable settings): one instance
 * serves a subtask's task thread. Build them with {@link Formats}.
 */
public interface Format<T> extends Serializable {

    /** The record for {@code bytes} ({@code null} for a tombstone, a record without a value). */
    T decode(byte[] bytes) throws Exception;

    /** The bytes of {@code value}. */
    byte[] encode(T value) throws Exception;

    /** A short name for errors and docs, for example {@code string} or {@code json(Click)}. */
    String name();
}
