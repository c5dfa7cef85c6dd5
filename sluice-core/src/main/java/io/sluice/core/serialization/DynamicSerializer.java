package io.sluice.core.serialization;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.tuple.Tuple3;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The serializer used when a stream's type was not declared: one tag byte per value, then the
 * value. It handles {@code null}, boxed primitives, {@link String}, {@code byte[]}, {@link UUID},
 * enums (by class and constant name), records (by class, then their components), {@link Tuple2},
 * {@link Tuple3}, {@link List} and {@link Map} of these, nested. Enum and record classes are
 * resolved by name through the thread's context class loader when read (on a task thread: the job's
 * own loader), once per class name and loader; the cache of a job's loader lives in that loader
 * ({@link PerClassLoader}), so two jobs with classes of one name each read their own, and an ended
 * job's classes are not kept.
 *
 * <p>Format versions (see {@link #identity()}): 1 knew tags 0-14; 2 adds UUID, enum and record.
 * Data of version 1 is valid data of version 2.
 *
 * <p>Java cannot see the element type of a lambda's result, so this is what lets
 * {@code env.fromSequence(..).map(v -> Tuple2.of(v % 8, 1L))} work with no type hints. For other
 * types, declare a serializer with {@code returns(...)}; an undeclared type fails the task with a
 * message that says so, rather than falling back to Java serialization.
 */
public final class DynamicSerializer implements TypeSerializer<Object> {
    static final DynamicSerializer INSTANCE = new DynamicSerializer();

    private static final byte NULL = 0, LONG = 1, INT = 2, STRING = 3, DOUBLE = 4, BOOLEAN = 5, FLOAT = 6,
            SHORT = 7, BYTE = 8, CHAR = 9, BYTES = 10, TUPLE2 = 11, TUPLE3 = 12, LIST = 13, MAP = 14,
            UUID_TAG = 15, ENUM = 16, RECORD = 17;
    static final int VERSION = 2;
    private static final long serialVersionUID = 1040987296686979546L;
    /**
     * Enum and record classes by name, per class loader (a job's classes are kept in the job's own
     * loader, never here), so that reading a value does not look a class up each time.
     */
    private static final PerClassLoader<Map<String, Class<?>>> CLASSES = new PerClassLoader<>(ConcurrentHashMap::new);

    private DynamicSerializer() {}

    @Override
    public void serialize(Object v, DataOutputBuffer out) {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Long l) {
            out.writeByte(LONG);
            out.writeLong(l);
        } else if (v instanceof Integer i) {
            out.writeByte(INT);
            out.writeInt(i);
        } else if (v instanceof String s) {
            out.writeByte(STRING);
            out.writeUTF(s);
        } else if (v instanceof Double d) {
            out.writeByte(DOUBLE);
            out.writeDouble(d);
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof Float f) {
            out.writeByte(FLOAT);
            out.writeFloat(f);
        } else if (v instanceof Short s) {
            out.writeByte(SHORT);
            out.writeShort(s);
        } else if (v instanceof Byte b) {
            out.writeByte(BYTE);
            out.writeByte(b);
        } else if (v instanceof Character c) {
            out.writeByte(CHAR);
            out.writeChar(c);
        } else if (v instanceof byte[] b) {
            out.writeByte(BYTES);
            out.writeBytes(b);
        } else if (v instanceof Tuple2<?, ?> t) {
            out.writeByte(TUPLE2);
            serialize(t.f0(), out);
            serialize(t.f1(), out);
        } else if (v instanceof Tuple3<?, ?, ?> t) {
            out.writeByte(TUPLE3);
            serialize(t.f0(), out);
            serialize(t.f1(), out);
            serialize(t.f2(), out);
        } else if (v instanceof List<?> list) {
            out.writeByte(LIST);
            out.writeVarInt(list.size());
            for (Object o : list) {
                serialize(o, out);
            }
        } else if (v instanceof Map<?, ?> map) {
            out.writeByte(MAP);
            out.writeVarInt(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                serialize(e.getKey(), out);
                serialize(e.getValue(), out);
            }
        } else if (v instanceof UUID u) {
            out.writeByte(UUID_TAG);
            out.writeLong(u.getMostSignificantBits());
            out.writeLong(u.getLeastSignificantBits());
        } else if (v instanceof Enum<?> e) {
            out.writeByte(ENUM);
            out.writeUTF(e.getDeclaringClass().getName());
            out.writeUTF(e.name());
        } else if (v instanceof Record r) {
            out.writeByte(RECORD);
            out.writeUTF(r.getClass().getName());
            RecordSerializer.RecordShape shape = RecordSerializer.RecordShape.of(r.getClass());
            for (int i = 0; i < shape.size(); i++) {
                serialize(shape.get(r, i), out);
            }
        } else {
            throw new io.sluice.core.serialization.MissingSerializerException(unsupported(v.getClass()));
        }
    }

    /**
     * Whether values of {@code type} can be written (for containers: the container; their elements
     * are checked when written).
     */
    public static boolean supports(Class<?> type) {
        return type == Long.class || type == Integer.class || type == String.class || type == Double.class
                || type == Boolean.class || type == Float.class || type == Short.class || type == Byte.class
                || type == Character.class || type == byte[].class || type == Tuple2.class || type == Tuple3.class
                || type == UUID.class || type.isEnum() || (type.getSuperclass() != null && type.getSuperclass().isEnum())
                || type.isRecord() || List.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type);
    }

    static String unsupported(Class<?> type) {
        return "No serializer for values of " + type.getName() + ". Sluice does not fall back to Java"
                + " serialization: declare one with .returns(TypeSerializer) on the operator that produces these"
                + " values (for keys: keyBy(selector, TypeSerializer)), or use a record, an enum or a built-in type";
    }

    /** Deep copy: immutable values are returned as they are, containers and arrays are copied. */
    @Override
    public Object copy(Object v) {
        if (v == null || v instanceof Long || v instanceof Integer || v instanceof String || v instanceof Double
                || v instanceof Boolean || v instanceof Float || v instanceof Short || v instanceof Byte
                || v instanceof Character || v instanceof UUID || v instanceof Enum<?>) {
            return v;
        } else if (v instanceof byte[] b) {
            return b.clone();
        } else if (v instanceof Tuple2<?, ?> t) {
            Object a = copy(t.f0());
            Object b = copy(t.f1());
            return a == t.f0() && b == t.f1() ? t : new Tuple2<>(a, b);
        } else if (v instanceof Tuple3<?, ?, ?> t) {
            Object a = copy(t.f0());
            Object b = copy(t.f1());
            Object c = copy(t.f2());
            return a == t.f0() && b == t.f1() && c == t.f2() ? t : new Tuple3<>(a, b, c);
        } else if (v instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            for (Object o : list) {
                copy.add(copy(o));
            }
            return copy;
        } else if (v instanceof Map<?, ?> map) {
            Map<Object, Object> copy = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                copy.put(copy(e.getKey()), copy(e.getValue()));
            }
            return copy;
        } else if (v instanceof Record r) {
            RecordSerializer.RecordShape shape = RecordSerializer.RecordShape.of(r.getClass());
            Object[] components = new Object[shape.size()];
            boolean changed = false;
            for (int i = 0; i < components.length; i++) {
                Object c = shape.get(r, i);
                components[i] = copy(c);
                changed |= components[i] != c;
            }
            return changed ? shape.create(components) : r;
        }
        throw new SerializationException(unsupported(v.getClass()));
    }

    @Override
    public SerializerIdentity identity() {
        return SerializerIdentity.of(Serializers.DYNAMIC_ID, VERSION);
    }

    @Override
    public Object deserialize(DataInputBuffer in) {
        byte tag = in.readByte();
        switch (tag) {
            case NULL: return null;
            case LONG: return in.readLong();
            case INT: return in.readInt();
            case STRING: return in.readUTF();
            case DOUBLE: return in.readDouble();
            case BOOLEAN: return in.readBoolean();
            case FLOAT: return in.readFloat();
            case SHORT: return in.readShort();
            case BYTE: return in.readByte();
            case CHAR: return in.readChar();
            case BYTES: return in.readBytes();
            case TUPLE2: {
                Object a = deserialize(in);
                return new Tuple2<>(a, deserialize(in));
            }
            case TUPLE3: {
                Object a = deserialize(in);
                Object b = deserialize(in);
                return new Tuple3<>(a, b, deserialize(in));
            }
            case LIST: {
                int n = in.readVarInt();
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(deserialize(in));
                }
                return list;
            }
            case MAP: {
                int n = in.readVarInt();
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = deserialize(in);
                    map.put(k, deserialize(in));
                }
                return map;
            }
            case UUID_TAG: {
                long most = in.readLong();
                return new UUID(most, in.readLong());
            }
            case ENUM: {
                Class<?> type = classNamed(in.readUTF());
                String name = in.readUTF();
                for (Object constant : type.getEnumConstants()) {
                    if (((Enum<?>) constant).name().equals(name)) {
                        return constant;
                    }
                }
                throw new SerializationException("Enum " + type.getName() + " has no constant " + name
                        + ": the data was written when it had one; add the constant back to read it");
            }
            case RECORD: {
                Class<?> type = classNamed(in.readUTF());
                if (!type.isRecord()) {
                    throw new SerializationException(type.getName() + " was written as a record but is no longer one");
                }
                RecordSerializer.RecordShape shape = RecordSerializer.RecordShape.of(type);
                Object[] components = new Object[shape.size()];
                for (int i = 0; i < components.length; i++) {
                    components[i] = deserialize(in);
                }
                return shape.create(components);
            }
            default:
                throw new SerializationException("Unknown type tag " + tag + " at position " + (in.position() - 1)
                        + ": the data was not written by the dynamic serializer");
        }
    }

    @Override
    public String typeName() {
        return "dynamic";
    }

    /** The class named {@code name} as the thread's context class loader (the job's, on a task thread) sees it. */
    private static Class<?> classNamed(String name) {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        ClassLoader loader = context != null ? context : DynamicSerializer.class.getClassLoader();
        Map<String, Class<?>> cache = CLASSES.get(loader);
        Class<?> type = cache == null ? null : cache.get(name);
        if (type == null) {
            try {
                type = Class.forName(name, false, loader);
            } catch (ClassNotFoundException e) {
                throw new SerializationException("The data holds a value of class " + name + ", which is not on the"
                        + " class path: put the job's classes on the class path to read it", e);
            }
            if (cache != null) {
                cache.put(name, type);
            }
        }
        return type;
    }

    private Object readResolve() {
        return INSTANCE;
    }
}
