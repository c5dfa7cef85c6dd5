package io.sluice.state;

import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.StateDescriptor;
import io.sluice.api.state.StateDescriptor.Kind;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.core.serialization.SerializerRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a snapshot records about one keyed state: its name, its kind and its serializers, and how
 * the per-key value of that kind is encoded with them.
 *
 * <p>The per-key value is the heap backend's representation: the user's value for
 * {@link Kind#VALUE}, a {@link StateList} (an {@link ArrayList}) of elements for {@link Kind#LIST}, a
 * {@link StateMap} (a {@link HashMap}) for {@link Kind#MAP}; snapshots written from a copy hold plain
 * ones. The serializers are written once per state by their stable identity
 * ({@link SerializerRegistry}); values are never Java-serialized.
 *
 * <p>Every keyed state backend records its states with this class in the canonical snapshot format
 * ({@link KeyedSnapshotFormat}), so that a snapshot written by one backend restores into another.
 *
 * <p>Threading: immutable, so it may be handed from the task thread to the thread that writes a
 * snapshot. Serializers are stateless by the {@link TypeSerializer} contract.
 */
public final class StateMetaInfo {
    private final String name;
    private final Kind kind;
    /** VALUE: [value]; LIST: [element]; MAP: [mapKey, mapValue]. */
    private final TypeSerializer<Object>[] serializers;

    private StateMetaInfo(String name, Kind kind, TypeSerializer<Object>[] serializers) {
        this.name = name;
        this.kind = kind;
        this.serializers = serializers;
        int expected = kind == Kind.MAP ? 2 : 1;
        if (serializers.length != expected) {
            throw new SerializationException("State '" + name + "' of kind " + kind + " needs " + expected
                    + " serializer(s) but has " + serializers.length + ": the snapshot is corrupt");
        }
        for (TypeSerializer<Object> s : serializers) {
            if (s == null) {
                throw new IllegalArgumentException("State '" + name + "' was declared with a null serializer;"
                        + " pass a TypeSerializer, or omit it to use the dynamic serializer");
            }
        }
    }

    /** The meta info of the state {@code descriptor} declares. */
    public static StateMetaInfo of(StateDescriptor descriptor) {
        if (descriptor instanceof ValueStateDescriptor<?> d) {
            return new StateMetaInfo(d.name(), Kind.VALUE, array(d.serializer()));
        } else if (descriptor instanceof ListStateDescriptor<?> d) {
            return new StateMetaInfo(d.name(), Kind.LIST, array(d.elementSerializer()));
        } else if (descriptor instanceof MapStateDescriptor<?, ?> d) {
            return new StateMetaInfo(d.name(), Kind.MAP, array(d.keySerializer(), d.valueSerializer()));
        }
        throw new IllegalArgumentException("Unsupported state descriptor " + descriptor.getClass().getName()
                + " for state '" + descriptor.name() + "'");
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /**
     * The serializers, in the order of {@link #serializer(int)}: the value's ({@link Kind#VALUE}), the
     * element's ({@link Kind#LIST}), or the map key's and the map value's ({@link Kind#MAP}).
     */
    public int serializerCount() {
        return serializers.length;
    }

    /** See {@link #serializerCount()}. */
    public TypeSerializer<Object> serializer(int index) {
        return serializers[index];
    }

    /** The same state with the serializers of {@code other} (same name and kind). */
    StateMetaInfo withSerializersOf(StateMetaInfo other) {
        return new StateMetaInfo(name, kind, other.serializers.clone());
    }

    /** Writes name, kind and the serializers by their stable identity (format version 2 on). */
    public void writeTo(DataOutputBuffer out) {
        out.writeUTF(name);
        out.writeUTF(kind.name());
        out.writeVarInt(serializers.length);
        for (TypeSerializer<Object> s : serializers) {
            SerializerRegistry.write(s, out);
        }
    }

    /**
     * Reads what {@link #writeTo} wrote, in the layout of snapshot format {@code formatVersion}:
     * version 1 stored the serializer array with Java serialization.
     */
    public static StateMetaInfo readFrom(DataInputBuffer in, int formatVersion, ClassLoader classLoader) {
        String name = in.readUTF();
        String kindName = in.readUTF();
        Kind kind;
        try {
            kind = Kind.valueOf(kindName);
        } catch (IllegalArgumentException e) {
            throw new SerializationException("State '" + name + "' in the snapshot has unknown kind '" + kindName
                    + "': the snapshot was written by an incompatible Sluice version", e);
        }
        if (formatVersion == 1) {
            byte[] bytes = in.readBytes();
            if (bytes == null) {
                throw new SerializationException("State '" + name + "' in the snapshot has no serializers: the snapshot is corrupt");
            }
            try {
                return new StateMetaInfo(name, kind, SerializerRegistry.readLegacyJavaSerialized(bytes, classLoader));
            } catch (SerializationException e) {
                throw new SerializationException("State '" + name + "': " + e.getMessage(), e);
            }
        }
        int count = in.readVarInt();
        if (count < 1 || count > 2) {
            throw new SerializationException("State '" + name + "' in the snapshot claims " + count
                    + " serializers: the snapshot is corrupt");
        }
        @SuppressWarnings("unchecked")
        TypeSerializer<Object>[] serializers = new TypeSerializer[count];
        for (int i = 0; i < count; i++) {
            try {
                serializers[i] = SerializerRegistry.read(in, classLoader);
            } catch (SerializationException e) {
                throw new SerializationException("State '" + name + "': " + e.getMessage(), e);
            }
        }
        return new StateMetaInfo(name, kind, serializers);
    }

    /**
     * A copy of one key's value (as the backend holds it) that later changes by user code, to the
     * value or to the objects in it, do not affect: containers are new, and every user value is
     * copied with its serializer ({@link TypeSerializer#copy}, the identity for immutable types).
     */
    Object copyValue(Object value) {
        switch (kind) {
            case VALUE:
                return serializers[0].copy(value);
            case LIST: {
                List<?> list = (List<?>) value;
                ArrayList<Object> copy = new ArrayList<>(list.size());
                for (Object element : list) {
                    copy.add(serializers[0].copy(element));
                }
                return copy;
            }
            case MAP: {
                Map<?, ?> map = (Map<?, ?>) value;
                HashMap<Object, Object> copy = new HashMap<>(map.size() * 4 / 3 + 1);
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    copy.put(serializers[0].copy(e.getKey()), serializers[1].copy(e.getValue()));
                }
                return copy;
            }
            default:
                throw new AssertionError(kind);
        }
    }

    /**
     * Whether nothing in a list or map state's per-key container can change behind the state's back:
     * every list element, or every map value, is immutable (its serializer's {@link TypeSerializer#copy}
     * returns it as it is). Map keys are not looked at: as keys of a hash map they must not change
     * anyway. Such a container can be shared with a snapshot, copy-on-write. {@code false} for value
     * states.
     */
    boolean holdsOnlyImmutable(Object value) {
        switch (kind) {
            case LIST: {
                TypeSerializer<Object> element = serializers[0];
                for (Object e : (List<?>) value) {
                    if (element.copy(e) != e) {
                        return false;
                    }
                }
                return true;
            }
            case MAP: {
                TypeSerializer<Object> mapValue = serializers[1];
                for (Object v : ((Map<?, ?>) value).values()) {
                    if (mapValue.copy(v) != v) {
                        return false;
                    }
                }
                return true;
            }
            default:
                return false;
        }
    }

    /**
     * Writes one key's value of this state (never {@code null}: absent values are not stored): the
     * value; a {@link List} of elements (varint count, elements); a {@link Map} (varint count, then
     * key and value per entry).
     */
    public void writeValue(Object value, DataOutputBuffer out) {
        switch (kind) {
            case VALUE -> serializers[0].serialize(value, out);
            case LIST -> {
                List<?> list = (List<?>) value;
                out.writeVarInt(list.size());
                for (Object element : list) {
                    serializers[0].serialize(element, out);
                }
            }
            case MAP -> {
                Map<?, ?> map = (Map<?, ?>) value;
                out.writeVarInt(map.size());
                for (Map.Entry<?, ?> e : map.entrySet()) {
                    serializers[0].serialize(e.getKey(), out);
                    serializers[1].serialize(e.getValue(), out);
                }
            }
        }
    }

    /**
     * Reads what {@link #writeValue} wrote, as the backend's mutable representation: a
     * {@link StateList} or {@link StateMap} of snapshot epoch 0 for list and map states (restores
     * happen before the first snapshot).
     */
    public Object readValue(DataInputBuffer in) {
        switch (kind) {
            case VALUE:
                return serializers[0].deserialize(in);
            case LIST: {
                int n = in.readVarInt();
                StateList<Object> list = new StateList<>(n, 0);
                for (int i = 0; i < n; i++) {
                    list.add(serializers[0].deserialize(in));
                }
                return list;
            }
            case MAP: {
                int n = in.readVarInt();
                StateMap<Object, Object> map = new StateMap<>(0);
                for (int i = 0; i < n; i++) {
                    Object k = serializers[0].deserialize(in);
                    map.put(k, serializers[1].deserialize(in));
                }
                return map;
            }
            default:
                throw new AssertionError(kind);
        }
    }

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object>[] array(TypeSerializer<?>... serializers) {
        return (TypeSerializer<Object>[]) serializers.clone();
    }
}
