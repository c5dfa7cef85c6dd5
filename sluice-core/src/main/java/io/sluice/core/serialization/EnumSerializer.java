package io.sluice.core.serialization;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Enum constants, written by name, so that reordering or adding constants keeps old data
 * readable; a constant that was removed fails the read with its name. Thread-safe: the name table
 * is built once, lazily, and then only read.
 */
final class EnumSerializer<E extends Enum<E>> implements TypeSerializer<E> {
    private static final long serialVersionUID = 1L;

    private final Class<E> type;
    private transient volatile Map<String, E> byName;

    EnumSerializer(Class<E> type) {
        this.type = Objects.requireNonNull(type, "enum class");
        if (!type.isEnum()) {
            throw new IllegalArgumentException(type.getName() + " is not an enum");
        }
    }

    @Override
    public void serialize(E value, DataOutputBuffer out) {
        out.writeUTF(value.name());
    }

    @Override
    public E deserialize(DataInputBuffer in) {
        String name = in.readUTF();
        E value = constants().get(name);
        if (value == null) {
            throw new SerializationException("Enum " + type.getName() + " has no constant " + name
                    + " (it has " + constants().keySet() + "): the data was written when the enum had it;"
                    + " add the constant back to read it");
        }
        return value;
    }

    @Override
    public E copy(E value) {
        return value;
    }

    @Override
    public String typeName() {
        return type.getSimpleName();
    }

    @Override
    public SerializerIdentity identity() {
        return new SerializerIdentity(Serializers.ENUM_ID, 1, type.getName(), java.util.List.of());
    }

    private Map<String, E> constants() {
        Map<String, E> m = byName;
        if (m == null) {
            m = new HashMap<>();
            for (E e : type.getEnumConstants()) {
                m.put(e.name(), e);
            }
            byName = m;
        }
        return m;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EnumSerializer<?> s && s.type == type;
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }
}
