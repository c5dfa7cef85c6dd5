package io.sluice.api.state;

import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;

/** Declares a {@link MapState}. */
public final class MapStateDescriptor<K, V> extends StateDescriptor {
    /** Pinned to the value of the build before state time-to-live, so stored job graphs stay readable. */
    private static final long serialVersionUID = 1424231047829450495L;

    private final TypeSerializer<K> keySerializer;
    private final TypeSerializer<V> valueSerializer;

    public MapStateDescriptor(String name) {
        this(name, Serializers.dynamic(), Serializers.dynamic());
    }

    public MapStateDescriptor(String name, TypeSerializer<K> keySerializer, TypeSerializer<V> valueSerializer) {
        super(name);
        this.keySerializer = keySerializer;
        this.valueSerializer = valueSerializer;
    }

    public TypeSerializer<K> keySerializer() {
        return keySerializer;
    }

    public TypeSerializer<V> valueSerializer() {
        return valueSerializer;
    }

    @Override
    public Kind kind() {
        return Kind.MAP;
    }
}
