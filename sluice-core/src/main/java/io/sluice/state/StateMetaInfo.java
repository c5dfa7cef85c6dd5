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
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a snapshot records about one keyed state: its name, its kind and its serializers, and how
 * the per-key value of that kind is encoded with them.
 *
 * <p>The per-key value is the heap backend's representation: the user's value for
 * {@link Kind#VALUE}, an {@link ArrayList} of elements for {@link Kind#LIST}, a {@link HashMap}
 * for {@link Kind#MAP}. The serializers are written once per state with Java serialization (they
 * are {@link java.io.Serializable} by contract); values are never Java-serialized.
 *
 * <p>Threading: immutable, so it may be handed from the task thread to the thread that writes a
 * snapshot. Serializers are stateless by the {@link TypeSerializer} contract.
 */
final class StateMetaInfo {
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

    static StateMetaInfo of(StateDescriptor descriptor) {
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

    String name() {
        return name;
    }

    Kind kind() {
        return kind;
    }

    /** Writes name, kind and the Java-serialized serializers. */
    void writeTo(DataOutputBuffer out) {
        out.writeUTF(name);
        out.writeUTF(kind.name());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
            oos.writeObject(serializers);
        } catch (IOException e) {
            throw new SerializationException("Could not write the serializers of state '" + name
                    + "' with Java serialization: make every field of the serializer Serializable", e);
        }
        out.writeBytes(bytes.toByteArray());
    }

    static StateMetaInfo readFrom(DataInputBuffer in) {
        String name = in.readUTF();
        String kindName = in.readUTF();
        Kind kind;
        try {
            kind = Kind.valueOf(kindName);
        } catch (IllegalArgumentException e) {
            throw new SerializationException("State '" + name + "' in the snapshot has unknown kind '" + kindName
                    + "': the snapshot was written by an incompatible Sluice version", e);
        }
        byte[] bytes = in.readBytes();
        if (bytes == null) {
            throw new SerializationException("State '" + name + "' in the snapshot has no serializers: the snapshot is corrupt");
        }
        try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            @SuppressWarnings("unchecked")
            TypeSerializer<Object>[] serializers = (TypeSerializer<Object>[]) ois.readObject();
            return new StateMetaInfo(name, kind, serializers);
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new SerializationException("Could not read the serializers of state '" + name
                    + "' from the snapshot: put the serializer classes the job used on the class path", e);
        }
    }

    /** Writes one key's value of this state (never {@code null}: absent values are not stored). */
    void writeValue(Object value, DataOutputBuffer out) {
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

    /** Reads what {@link #writeValue} wrote, as the backend's mutable representation. */
    Object readValue(DataInputBuffer in) {
        switch (kind) {
            case VALUE:
                return serializers[0].deserialize(in);
            case LIST: {
                int n = in.readVarInt();
                ArrayList<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(serializers[0].deserialize(in));
                }
                return list;
            }
            case MAP: {
                int n = in.readVarInt();
                HashMap<Object, Object> map = new HashMap<>();
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
