package io.sluice.core.serialization;

import io.sluice.api.Tuple2;
import io.sluice.api.Tuple3;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.LinkedHashMap;

/**
 * The serializer used when a stream's type was not declared: one tag byte per value, then the
 * value. It handles {@code null}, boxed primitives, {@link String}, {@code byte[]},
 * {@link Tuple2}, {@link Tuple3}, {@link List} and {@link Map} of these, nested.
 *
 * <p>Java cannot see the element type of a lambda's result, so this is what lets
 * {@code env.fromSequence(..).map(v -> Tuple2.of(v % 8, 1L))} work with no type hints. For other
 * types, declare a serializer with {@code returns(...)}; an undeclared type fails the task with a
 * message that says so, rather than falling back to Java serialization.
 */
public final class DynamicSerializer implements TypeSerializer<Object> {
    static final DynamicSerializer INSTANCE = new DynamicSerializer();

    private static final byte NULL = 0, LONG = 1, INT = 2, STRING = 3, DOUBLE = 4, BOOLEAN = 5, FLOAT = 6,
            SHORT = 7, BYTE = 8, CHAR = 9, BYTES = 10, TUPLE2 = 11, TUPLE3 = 12, LIST = 13, MAP = 14;

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
        } else {
            throw new io.sluice.api.MissingSerializerException("No serializer for values of " + v.getClass().getName()
                    + ". Sluice does not fall back to Java serialization: declare one with"
                    + " .returns(TypeSerializer) on the operator that produces these values.");
        }
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
            default:
                throw new SerializationException("Unknown type tag " + tag + " at position " + (in.position() - 1)
                        + ": the data was not written by the dynamic serializer");
        }
    }

    @Override
    public String typeName() {
        return "dynamic";
    }

    private Object readResolve() {
        return INSTANCE;
    }
}
