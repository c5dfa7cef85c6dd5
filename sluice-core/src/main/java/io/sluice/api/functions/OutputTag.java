package io.sluice.api.functions;

import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.io.Serializable;
import java.util.Objects;

/**
 * Names a side output of an operator: a second stream of records of type {@code T} that a process
 * function emits with {@code ctx.output(tag, value)} and the job reads with
 * {@code stream.getSideOutput(tag)}. Tags are equal when their ids are.
 *
 * @param id         unique among the operator's side outputs
 * @param serializer the serializer of the side output's records
 */
public record OutputTag<T>(String id, TypeSerializer<T> serializer) implements Serializable {
    public OutputTag {
        Objects.requireNonNull(id, "id");
        if (id.isBlank()) {
            throw new IllegalArgumentException("An output tag needs a non-blank id");
        }
        Objects.requireNonNull(serializer, "serializer");
    }

    /** A tag whose records use the dynamic serializer. */
    public static <T> OutputTag<T> of(String id) {
        return new OutputTag<>(id, Serializers.dynamic());
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutputTag<?> other && other.id.equals(id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }
}
