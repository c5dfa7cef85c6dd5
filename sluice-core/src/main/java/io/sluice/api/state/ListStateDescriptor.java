package io.sluice.api.state;

import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;

/** Declares a {@link ListState}. */
public final class ListStateDescriptor<T> extends StateDescriptor {
    /** Pinned to the value of the build before state time-to-live, so stored job graphs stay readable. */
    private static final long serialVersionUID = -336667412354515673L;

    private final TypeSerializer<T> elementSerializer;

    public ListStateDescriptor(String name) {
        this(name, Serializers.dynamic());
    }

    public ListStateDescriptor(String name, TypeSerializer<T> elementSerializer) {
        super(name);
        this.elementSerializer = elementSerializer;
    }

    public TypeSerializer<T> elementSerializer() {
        return elementSerializer;
    }

    @Override
    public Kind kind() {
        return Kind.LIST;
    }
}
