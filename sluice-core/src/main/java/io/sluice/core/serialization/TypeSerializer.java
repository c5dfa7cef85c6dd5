package io.sluice.core.serialization;

import java.io.Serializable;

/**
 * Writes and reads values of one type to and from Sluice's byte buffers.
 *
 * <p>Every record that crosses a task boundary, and every value kept in keyed state, goes through
 * a {@code TypeSerializer}: Sluice never uses Java serialization per record. Serializers are
 * themselves {@link Serializable} because they travel inside the job graph. They must be
 * stateless (or hold only immutable configuration), so one instance may be used by many threads.
 *
 * <p><b>Identity in snapshots.</b> A keyed-state snapshot records each state's serializers so that
 * a restore can read the state without the job's code at hand. A serializer with an
 * {@link #identity()} is recorded by that stable name and version and found again through the
 * {@link SerializerRegistry}; one without (the default, for serializers written by users) is
 * recorded with Java serialization of the serializer object, so its class must keep its name and
 * {@code serialVersionUID}.
 */
public interface TypeSerializer<T> extends Serializable {

    void serialize(T value, DataOutputBuffer out);

    T deserialize(DataInputBuffer in);

    /** A short name for error messages and docs, for example {@code Long} or {@code Tuple2<String, Long>}. */
    default String typeName() {
        return getClass().getSimpleName();
    }

    /**
     * A copy of {@code value} that later changes to {@code value} do not affect. Snapshots of keyed
     * state call this on the task thread, so that user code may keep mutating the objects it got
     * from state while the snapshot is written on another thread. Serializers of immutable types
     * return {@code value} itself; the default copies by serializing and deserializing, which is
     * correct for every serializer and worth overriding for speed.
     */
    default T copy(T value) {
        if (value == null) {
            return null;
        }
        DataOutputBuffer out = new DataOutputBuffer(64);
        serialize(value, out);
        return deserialize(new DataInputBuffer(out.array(), 0, out.position()));
    }

    /**
     * The stable name, format version and configuration under which snapshots record this
     * serializer, or {@code null} to record it with Java serialization. Built-in serializers have
     * one; see {@link SerializerRegistry}.
     */
    default SerializerIdentity identity() {
        return null;
    }
}
