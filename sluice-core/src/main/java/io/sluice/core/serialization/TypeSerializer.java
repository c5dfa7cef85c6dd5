package io.sluice.core.serialization;

import java.io.Serializable;

/**
 * Writes and reads values of one type to and from Sluice's byte buffers.
 *
 * <p>Every record that crosses a task boundary, and every value kept in keyed state, goes through
 * a {@code TypeSerializer}: Sluice never uses Java serialization per record. Serializers are
 * themselves {@link Serializable} because they travel inside the job graph. They must be
 * stateless (or hold only immutable configuration), so one instance may be used by many threads.
 */
public interface TypeSerializer<T> extends Serializable {

    void serialize(T value, DataOutputBuffer out);

    T deserialize(DataInputBuffer in);

    /** A short name for error messages and docs, for example {@code Long} or {@code Tuple2<String, Long>}. */
    default String typeName() {
        return getClass().getSimpleName();
    }
}
