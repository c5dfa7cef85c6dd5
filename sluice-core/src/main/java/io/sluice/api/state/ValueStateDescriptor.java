package io.sluice.api.state;

import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;

/** Declares a {@link ValueState}. Without a serializer, values use the dynamic serializer. */
public final class ValueStateDescriptor<T> extends StateDescriptor {
    /** Pinned to the value of the build before state time-to-live, so stored job graphs stay readable. */
    private static final long serialVersionUID = 4611323907233120462L;

    private final TypeSerializer<T> serializer;

    public ValueStateDescriptor(String name) {
        this(name, Serializers.dynamic());
    }

    public ValueStateDescriptor(String name, TypeSerializer<T> serializer) {
        super(name);
        this.serializer = serializer;
    }

    public TypeSerializer<T> serializer() {
        return serializer;
    }

    @Override
    public Kind kind() {
        return Kind.VALUE;
    }
}
