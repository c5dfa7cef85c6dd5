package io.sluice.core.serialization;

import io.sluice.api.Tuple2;
import java.util.ArrayList;
import java.util.List;

/** Serializers for common types. All are stateless singletons or small immutable values. */
public final class Serializers {
    private Serializers() {}

    public static final TypeSerializer<Long> LONG = new TypeSerializer<>() {
        @Override public void serialize(Long v, DataOutputBuffer out) { out.writeLong(v); }
        @Override public Long deserialize(DataInputBuffer in) { return in.readLong(); }
        @Override public String typeName() { return "Long"; }
    };

    public static final TypeSerializer<Integer> INT = new TypeSerializer<>() {
        @Override public void serialize(Integer v, DataOutputBuffer out) { out.writeInt(v); }
        @Override public Integer deserialize(DataInputBuffer in) { return in.readInt(); }
        @Override public String typeName() { return "Integer"; }
    };

    public static final TypeSerializer<Double> DOUBLE = new TypeSerializer<>() {
        @Override public void serialize(Double v, DataOutputBuffer out) { out.writeDouble(v); }
        @Override public Double deserialize(DataInputBuffer in) { return in.readDouble(); }
        @Override public String typeName() { return "Double"; }
    };

    public static final TypeSerializer<Boolean> BOOLEAN = new TypeSerializer<>() {
        @Override public void serialize(Boolean v, DataOutputBuffer out) { out.writeBoolean(v); }
        @Override public Boolean deserialize(DataInputBuffer in) { return in.readBoolean(); }
        @Override public String typeName() { return "Boolean"; }
    };

    public static final TypeSerializer<String> STRING = new TypeSerializer<>() {
        @Override public void serialize(String v, DataOutputBuffer out) { out.writeUTF(v); }
        @Override public String deserialize(DataInputBuffer in) { return in.readUTF(); }
        @Override public String typeName() { return "String"; }
    };

    public static final TypeSerializer<byte[]> BYTES = new TypeSerializer<>() {
        @Override public void serialize(byte[] v, DataOutputBuffer out) { out.writeBytes(v); }
        @Override public byte[] deserialize(DataInputBuffer in) { return in.readBytes(); }
        @Override public String typeName() { return "byte[]"; }
    };

    /** Handles the built-in types without declaring them; see {@link DynamicSerializer}. */
    public static <T> TypeSerializer<T> dynamic() {
        @SuppressWarnings("unchecked")
        TypeSerializer<T> s = (TypeSerializer<T>) DynamicSerializer.INSTANCE;
        return s;
    }

    public static <A, B> TypeSerializer<Tuple2<A, B>> tuple2(TypeSerializer<A> a, TypeSerializer<B> b) {
        return new Tuple2Serializer<>(a, b);
    }

    public static <T> TypeSerializer<List<T>> list(TypeSerializer<T> element) {
        return new ListSerializer<>(element);
    }

    /** Wraps a serializer so that it also accepts {@code null}, at the cost of one byte per value. */
    public static <T> TypeSerializer<T> nullable(TypeSerializer<T> inner) {
        return new NullableSerializer<>(inner);
    }

    record Tuple2Serializer<A, B>(TypeSerializer<A> a, TypeSerializer<B> b) implements TypeSerializer<Tuple2<A, B>> {
        @Override public void serialize(Tuple2<A, B> v, DataOutputBuffer out) {
            a.serialize(v.f0(), out);
            b.serialize(v.f1(), out);
        }
        @Override public Tuple2<A, B> deserialize(DataInputBuffer in) {
            A x = a.deserialize(in);
            return new Tuple2<>(x, b.deserialize(in));
        }
        @Override public String typeName() { return "Tuple2<" + a.typeName() + ", " + b.typeName() + ">"; }
    }

    record ListSerializer<T>(TypeSerializer<T> element) implements TypeSerializer<List<T>> {
        @Override public void serialize(List<T> v, DataOutputBuffer out) {
            out.writeVarInt(v.size());
            for (T t : v) {
                element.serialize(t, out);
            }
        }
        @Override public List<T> deserialize(DataInputBuffer in) {
            int n = in.readVarInt();
            List<T> list = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                list.add(element.deserialize(in));
            }
            return list;
        }
        @Override public String typeName() { return "List<" + element.typeName() + ">"; }
    }

    record NullableSerializer<T>(TypeSerializer<T> inner) implements TypeSerializer<T> {
        @Override public void serialize(T v, DataOutputBuffer out) {
            if (v == null) {
                out.writeBoolean(false);
            } else {
                out.writeBoolean(true);
                inner.serialize(v, out);
            }
        }
        @Override public T deserialize(DataInputBuffer in) {
            return in.readBoolean() ? inner.deserialize(in) : null;
        }
        @Override public String typeName() { return inner.typeName() + "?"; }
    }
}
