package io.sluice.core.serialization;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds serializers by the stable {@link SerializerIdentity} that snapshots record, and writes and
 * reads those records.
 *
 * <p>A serializer is written as one tag byte, then either its identity (tag {@value #BY_IDENTITY}:
 * UTF id, varint version, a flag and UTF parameter if present, varint count of nested
 * serializers, each written the same way) or, for a serializer without an identity, its Java
 * serialization (tag {@value #BY_JAVA_SERIALIZATION}: bytes). So snapshots of built-in serializers
 * do not depend on Java class names, which the compiler chooses for anonymous classes and which
 * change when code is reordered.
 *
 * <p>Each built-in id is registered here with the format versions it reads. An id or version
 * this build does not know fails the restore with a message naming it. Users may
 * {@link #register} their own ids (once, before a restore).
 *
 * <p>Threading: thread-safe.
 */
public final class SerializerRegistry {
    static final byte BY_IDENTITY = 1;
    static final byte BY_JAVA_SERIALIZATION = 2;

    /** Creates the serializer of one identity; {@code nested} are already resolved. */
    @FunctionalInterface
    public interface Factory {
        TypeSerializer<?> create(int version, String parameter, List<TypeSerializer<?>> nested, ClassLoader classLoader)
                throws ReflectiveOperationException;
    }

    private record Entry(int maxVersion, Factory factory) {}

    /** The built-in ids; immutable after class initialisation. */
    private static final Map<String, Entry> FACTORIES = new ConcurrentHashMap<>();
    /**
     * The ids users registered, per class loader of the registering factory: a job's registrations
     * live in the job's own loader (so the same jar submitted twice registers twice, and an ended
     * job's factories are not kept), those of Sluice's own class path here.
     */
    private static final PerClassLoader<Map<String, Entry>> USER_FACTORIES = new PerClassLoader<>(ConcurrentHashMap::new);

    static {
        registerBuiltIn(Serializers.LONG_ID, 1, (v, p, n, cl) -> Serializers.LONG);
        registerBuiltIn(Serializers.INT_ID, 1, (v, p, n, cl) -> Serializers.INT);
        registerBuiltIn(Serializers.DOUBLE_ID, 1, (v, p, n, cl) -> Serializers.DOUBLE);
        registerBuiltIn(Serializers.BOOLEAN_ID, 1, (v, p, n, cl) -> Serializers.BOOLEAN);
        registerBuiltIn(Serializers.STRING_ID, 1, (v, p, n, cl) -> Serializers.STRING);
        registerBuiltIn(Serializers.BYTES_ID, 1, (v, p, n, cl) -> Serializers.BYTES);
        registerBuiltIn(Serializers.UUID_ID, 1, (v, p, n, cl) -> Serializers.UUID);
        registerBuiltIn(Serializers.TIME_WINDOW_ID, 1, (v, p, n, cl) -> Serializers.TIME_WINDOW);
        registerBuiltIn(Serializers.DYNAMIC_ID, DynamicSerializer.VERSION, (v, p, n, cl) -> Serializers.dynamic());
        registerBuiltIn(Serializers.TUPLE2_ID, 1, (v, p, n, cl) -> Serializers.tuple2(n.get(0), n.get(1)));
        registerBuiltIn(Serializers.LIST_ID, 1, (v, p, n, cl) -> Serializers.list(n.get(0)));
        registerBuiltIn(Serializers.NULLABLE_ID, 1, (v, p, n, cl) -> Serializers.nullable(n.get(0)));
        registerBuiltIn(TimestampedValueSerializer.ID, 1, (v, p, n, cl) -> Serializers.timestamped(n.get(0)));
        registerBuiltIn(Serializers.ENUM_ID, 1, (v, p, n, cl) -> enumSerializer(Class.forName(p, false, cl)));
        registerBuiltIn(Serializers.RECORD_ID, 1, (v, p, n, cl) -> recordSerializer(Class.forName(p, false, cl)));
    }

    private SerializerRegistry() {}

    private static void registerBuiltIn(String id, int maxVersion, Factory factory) {
        FACTORIES.put(id, new Entry(maxVersion, factory));
    }

    /**
     * Registers a user serializer id, readable up to {@code maxVersion}, for the class loader that
     * loaded {@code factory}'s class (a job's, or Sluice's own): snapshots read with that loader
     * (a job's restores; a job's loader also sees the ids of Sluice's own class path) find it. Ids
     * starting with {@code sluice.} are reserved.
     *
     * @throws IllegalArgumentException if the id is reserved or already registered for that loader,
     *         or the factory's loader is neither a job's nor Sluice's own
     */
    public static void register(String id, int maxVersion, Factory factory) {
        if (id.startsWith("sluice.")) {
            throw new IllegalArgumentException("Serializer ids starting with 'sluice.' are reserved; choose another for " + id);
        }
        ClassLoader loader = factory.getClass().getClassLoader();
        Map<String, Entry> registered = USER_FACTORIES.get(loader);
        if (registered == null) {
            throw new IllegalArgumentException("The factory of serializer " + id + " was loaded by " + loader
                    + ", which is neither a job's class loader nor Sluice's own: register it from the job's code");
        }
        if (registered.putIfAbsent(id, new Entry(maxVersion, factory)) != null) {
            throw new IllegalArgumentException("A serializer with id " + id + " is already registered");
        }
    }

    private static Entry entryOf(String id, ClassLoader classLoader) {
        Entry entry = FACTORIES.get(id);
        if (entry == null && classLoader != null) {
            Map<String, Entry> own = USER_FACTORIES.get(classLoader);
            entry = own == null ? null : own.get(id);
        }
        if (entry == null) {
            entry = USER_FACTORIES.get(SerializerRegistry.class.getClassLoader()).get(id);
        }
        return entry;
    }

    /** Writes how to find {@code serializer} again; see the class comment for the layout. */
    public static void write(TypeSerializer<?> serializer, DataOutputBuffer out) {
        SerializerIdentity identity = serializer.identity();
        if (identity == null) {
            out.writeByte(BY_JAVA_SERIALIZATION);
            out.writeBytes(javaSerialize(serializer));
            return;
        }
        out.writeByte(BY_IDENTITY);
        out.writeUTF(identity.id());
        out.writeVarInt(identity.version());
        out.writeBoolean(identity.parameter() != null);
        if (identity.parameter() != null) {
            out.writeUTF(identity.parameter());
        }
        out.writeVarInt(identity.nested().size());
        for (TypeSerializer<?> nested : identity.nested()) {
            write(nested, out);
        }
    }

    /**
     * Reads what {@link #write} wrote.
     *
     * @throws SerializationException naming the id, version or class that cannot be resolved
     */
    public static TypeSerializer<Object> read(DataInputBuffer in, ClassLoader classLoader) {
        byte tag = in.readByte();
        if (tag == BY_JAVA_SERIALIZATION) {
            return javaDeserialize(in.readBytes(), classLoader);
        }
        if (tag != BY_IDENTITY) {
            throw new SerializationException("Unknown serializer record tag " + tag + " at position " + (in.position() - 1)
                    + ": the state's serializer description is corrupt");
        }
        String id = in.readUTF();
        int version = in.readVarInt();
        String parameter = in.readBoolean() ? in.readUTF() : null;
        int n = in.readVarInt();
        List<TypeSerializer<?>> nested = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            nested.add(read(in, classLoader));
        }
        return resolve(id, version, parameter, nested, classLoader);
    }

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> resolve(String id, int version, String parameter,
            List<TypeSerializer<?>> nested, ClassLoader classLoader) {
        Entry entry = entryOf(id, classLoader);
        if (entry == null) {
            throw new SerializationException("The state was written with serializer '" + id + "', which this Sluice"
                    + " does not know: register it with SerializerRegistry.register before restoring, or restore"
                    + " with the Sluice version that wrote it");
        }
        if (version > entry.maxVersion()) {
            throw new SerializationException("The state was written with version " + version + " of serializer '" + id
                    + "', but this Sluice reads it only up to version " + entry.maxVersion()
                    + ": restore with the Sluice version that wrote it, or a newer one");
        }
        try {
            return (TypeSerializer<Object>) entry.factory().create(version, parameter, nested, classLoader);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new SerializationException("Serializer '" + id + "'" + (parameter == null ? "" : " of " + parameter)
                    + " cannot be created (" + e + "): put the job's classes on the class path", e);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static TypeSerializer<?> enumSerializer(Class<?> type) {
        return Serializers.enumOf((Class) type);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static TypeSerializer<?> recordSerializer(Class<?> type) {
        return Serializers.record((Class) type);
    }

    private static byte[] javaSerialize(TypeSerializer<?> serializer) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
            oos.writeObject(serializer);
        } catch (IOException e) {
            throw new SerializationException("Could not record serializer " + serializer.getClass().getName()
                    + " with Java serialization: make every field of it Serializable, or give it an identity()", e);
        }
        return bytes.toByteArray();
    }

    @SuppressWarnings("unchecked")
    private static TypeSerializer<Object> javaDeserialize(byte[] bytes, ClassLoader classLoader) {
        if (bytes == null) {
            throw new SerializationException("A serializer record has no bytes: the snapshot is corrupt");
        }
        try (ObjectInputStream in = new LegacySerializerObjectInputStream(new ByteArrayInputStream(bytes), classLoader)) {
            return (TypeSerializer<Object>) in.readObject();
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new SerializationException("Could not read a serializer recorded with Java serialization (" + e
                    + "): put the serializer classes the job used on the class path", e);
        }
    }

    /**
     * Reads serializers that snapshots of format version 1 recorded with Java serialization,
     * including the built-in ones, which were anonymous classes then ({@code Serializers$1} to
     * {@code $6}, in the order LONG, INT, DOUBLE, BOOLEAN, STRING, BYTES) and whose classes no
     * longer exist. Those, and the built-in classes whose layout changed, are read with the
     * current class's description and resolved to the current singletons.
     *
     * <p>Used by the reader of the old format only; for a snapshot of format version 1, so for
     * data written by the one build that had those anonymous classes.
     */
    public static TypeSerializer<Object>[] readLegacyJavaSerialized(byte[] bytes, ClassLoader classLoader) {
        try (ObjectInputStream in = new LegacySerializerObjectInputStream(new ByteArrayInputStream(bytes), classLoader)) {
            @SuppressWarnings("unchecked")
            TypeSerializer<Object>[] serializers = (TypeSerializer<Object>[]) in.readObject();
            return serializers;
        } catch (IOException | ClassNotFoundException | ClassCastException e) {
            throw new SerializationException("Could not read the serializers of a format-1 snapshot (" + e
                    + "): put the serializer classes the job used on the class path", e);
        }
    }

}
