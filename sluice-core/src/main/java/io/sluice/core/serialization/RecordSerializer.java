package io.sluice.core.serialization;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.RecordComponent;
import java.util.List;
import java.util.Objects;

/**
 * A record, component by component in declaration order, each with the dynamic serializer
 * (so components may be boxed primitives, strings, tuples, lists, maps, enums, UUIDs and records).
 * Uses the record's accessors and canonical constructor through method handles, resolved once per
 * serializer instance: no Java serialization. Thread-safe.
 */
final class RecordSerializer<R extends Record> implements TypeSerializer<R> {
    private static final long serialVersionUID = 1L;

    private final Class<R> type;
    private transient volatile RecordShape shape;

    RecordSerializer(Class<R> type) {
        this.type = Objects.requireNonNull(type, "record class");
        if (!type.isRecord()) {
            throw new IllegalArgumentException(type.getName() + " is not a record");
        }
    }

    @Override
    public void serialize(R value, DataOutputBuffer out) {
        RecordShape s = shape();
        for (int i = 0; i < s.size(); i++) {
            DynamicSerializer.INSTANCE.serialize(s.get(value, i), out);
        }
    }

    @Override
    public R deserialize(DataInputBuffer in) {
        RecordShape s = shape();
        Object[] components = new Object[s.size()];
        for (int i = 0; i < components.length; i++) {
            components[i] = DynamicSerializer.INSTANCE.deserialize(in);
        }
        return type.cast(s.create(components));
    }

    @Override
    public R copy(R value) {
        if (value == null) {
            return null;
        }
        RecordShape s = shape();
        Object[] components = new Object[s.size()];
        boolean changed = false;
        for (int i = 0; i < components.length; i++) {
            Object c = s.get(value, i);
            components[i] = DynamicSerializer.INSTANCE.copy(c);
            changed |= components[i] != c;
        }
        return changed ? type.cast(s.create(components)) : value;
    }

    @Override
    public String typeName() {
        return type.getSimpleName();
    }

    @Override
    public SerializerIdentity identity() {
        return new SerializerIdentity(Serializers.RECORD_ID, 1, type.getName(), List.of());
    }

    private RecordShape shape() {
        RecordShape s = shape;
        if (s == null) {
            s = RecordShape.of(type);
            shape = s;
        }
        return s;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RecordSerializer<?> s && s.type == type;
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    /** A record class's accessors and canonical constructor. Immutable. */
    static final class RecordShape {
        private static final ClassValue<RecordShape> SHAPES = new ClassValue<>() {
            @Override
            protected RecordShape computeValue(Class<?> type) {
                return build(type);
            }
        };

        private final Class<?> type;
        private final MethodHandle[] accessors;
        private final MethodHandle constructor;

        private RecordShape(Class<?> type, MethodHandle[] accessors, MethodHandle constructor) {
            this.type = type;
            this.accessors = accessors;
            this.constructor = constructor;
        }

        static RecordShape of(Class<?> type) {
            return SHAPES.get(type);
        }

        private static RecordShape build(Class<?> type) {
            RecordComponent[] components = type.getRecordComponents();
            MethodHandle[] accessors = new MethodHandle[components.length];
            Class<?>[] types = new Class<?>[components.length];
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                for (int i = 0; i < components.length; i++) {
                    var accessor = components[i].getAccessor();
                    accessor.setAccessible(true);
                    accessors[i] = lookup.unreflect(accessor)
                            .asType(java.lang.invoke.MethodType.methodType(Object.class, Object.class));
                    types[i] = components[i].getType();
                }
                var ctor = type.getDeclaredConstructor(types);
                ctor.setAccessible(true);
                MethodHandle constructor = lookup.unreflectConstructor(ctor)
                        .asSpreader(Object[].class, components.length)
                        .asType(java.lang.invoke.MethodType.methodType(Object.class, Object[].class));
                return new RecordShape(type, accessors, constructor);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new SerializationException("Cannot serialize record " + type.getName() + ": its accessors or"
                        + " canonical constructor are not accessible (" + e + "). Make the record public, or declare"
                        + " a TypeSerializer for it", e);
            }
        }

        int size() {
            return accessors.length;
        }

        Object get(Object record, int i) {
            try {
                return accessors[i].invokeExact(record);
            } catch (Throwable t) {
                throw new SerializationException("Reading component " + i + " of record " + type.getName() + " failed: " + t, t);
            }
        }

        Object create(Object[] components) {
            try {
                return constructor.invokeExact(components);
            } catch (Throwable t) {
                throw new SerializationException("Creating a record " + type.getName() + " from its components failed"
                        + " (the record's constructor rejected them, or the data does not match the record's"
                        + " components): " + t, t);
            }
        }
    }
}
