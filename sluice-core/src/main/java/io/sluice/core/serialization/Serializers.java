package io.sluice.core.serialization;

import io.sluice.api.tuple.Tuple2;
import io.sluice.api.windowing.TimeWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Serializers for common types. All are stateless singletons or small immutable values, and each
 * has a stable {@link SerializerIdentity} (registered in {@link SerializerRegistry}), so that a
 * snapshot names them independently of how the Java compiler names classes.
 */
public final class Serializers {
    private Serializers() {}

    public static final TypeSerializer<Long> LONG = new LongSerializer();
    public static final TypeSerializer<Integer> INT = new IntSerializer();
    public static final TypeSerializer<Double> DOUBLE = new DoubleSerializer();
    public static final TypeSerializer<Boolean> BOOLEAN = new BooleanSerializer();
    public static final TypeSerializer<String> STRING = new StringSerializer();
    public static final TypeSerializer<byte[]> BYTES = new BytesSerializer();
    public static final TypeSerializer<UUID> UUID = new UuidSerializer();
    /** A window's start and end, 16 bytes (the dynamic serializer writes a record with its class name). */
    public static final TypeSerializer<TimeWindow> TIME_WINDOW = new TimeWindowSerializer();

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

    /**
     * Values with the time they were last written: what a keyed state with a time-to-live stores
     * (stable id {@code sluice.ttl}; the timestamp first, then the value).
     */
    public static <T> TypeSerializer<TimestampedValue<T>> timestamped(TypeSerializer<T> value) {
        return new TimestampedValueSerializer<>(value);
    }

    /** The constants of {@code type}, written by name: reordering or adding constants keeps old data readable. */
    public static <E extends Enum<E>> TypeSerializer<E> enumOf(Class<E> type) {
        return new EnumSerializer<>(type);
    }

    /** A record type, component by component with the dynamic serializer; no Java serialization. */
    public static <R extends Record> TypeSerializer<R> record(Class<R> type) {
        return new RecordSerializer<>(type);
    }

    /** The serializer's stable ids; part of the snapshot format, never change them. */
    static final String LONG_ID = "sluice.long", INT_ID = "sluice.int", DOUBLE_ID = "sluice.double",
            BOOLEAN_ID = "sluice.boolean", STRING_ID = "sluice.string", BYTES_ID = "sluice.bytes",
            UUID_ID = "sluice.uuid", TUPLE2_ID = "sluice.tuple2", LIST_ID = "sluice.list",
            NULLABLE_ID = "sluice.nullable", ENUM_ID = "sluice.enum", RECORD_ID = "sluice.record",
            DYNAMIC_ID = "sluice.dynamic", TIME_WINDOW_ID = "sluice.time-window";

    static final class TimeWindowSerializer implements TypeSerializer<TimeWindow> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(TimeWindow v, DataOutputBuffer out) {
            out.writeLong(v.start());
            out.writeLong(v.end());
        }
        @Override public TimeWindow deserialize(DataInputBuffer in) {
            long start = in.readLong();
            long end = in.readLong();
            if (end <= start) {
                throw new SerializationException("A time window read as [" + start + ", " + end + ") ends before it"
                        + " starts: the data is corrupt or was not written by the time-window serializer");
            }
            return new TimeWindow(start, end);
        }
        @Override public TimeWindow copy(TimeWindow v) { return v; }
        @Override public String typeName() { return "TimeWindow"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(TIME_WINDOW_ID, 1); }
        private Object readResolve() { return TIME_WINDOW; }
    }

    static final class LongSerializer implements TypeSerializer<Long> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(Long v, DataOutputBuffer out) { out.writeLong(v); }
        @Override public Long deserialize(DataInputBuffer in) { return in.readLong(); }
        @Override public Long copy(Long v) { return v; }
        @Override public String typeName() { return "Long"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(LONG_ID, 1); }
        private Object readResolve() { return LONG; }
    }

    static final class IntSerializer implements TypeSerializer<Integer> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(Integer v, DataOutputBuffer out) { out.writeInt(v); }
        @Override public Integer deserialize(DataInputBuffer in) { return in.readInt(); }
        @Override public Integer copy(Integer v) { return v; }
        @Override public String typeName() { return "Integer"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(INT_ID, 1); }
        private Object readResolve() { return INT; }
    }

    static final class DoubleSerializer implements TypeSerializer<Double> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(Double v, DataOutputBuffer out) { out.writeDouble(v); }
        @Override public Double deserialize(DataInputBuffer in) { return in.readDouble(); }
        @Override public Double copy(Double v) { return v; }
        @Override public String typeName() { return "Double"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(DOUBLE_ID, 1); }
        private Object readResolve() { return DOUBLE; }
    }

    static final class BooleanSerializer implements TypeSerializer<Boolean> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(Boolean v, DataOutputBuffer out) { out.writeBoolean(v); }
        @Override public Boolean deserialize(DataInputBuffer in) { return in.readBoolean(); }
        @Override public Boolean copy(Boolean v) { return v; }
        @Override public String typeName() { return "Boolean"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(BOOLEAN_ID, 1); }
        private Object readResolve() { return BOOLEAN; }
    }

    static final class StringSerializer implements TypeSerializer<String> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(String v, DataOutputBuffer out) { out.writeUTF(v); }
        @Override public String deserialize(DataInputBuffer in) { return in.readUTF(); }
        @Override public String copy(String v) { return v; }
        @Override public String typeName() { return "String"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(STRING_ID, 1); }
        private Object readResolve() { return STRING; }
    }

    static final class BytesSerializer implements TypeSerializer<byte[]> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(byte[] v, DataOutputBuffer out) { out.writeBytes(v); }
        @Override public byte[] deserialize(DataInputBuffer in) { return in.readBytes(); }
        @Override public byte[] copy(byte[] v) { return v == null ? null : v.clone(); }
        @Override public String typeName() { return "byte[]"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(BYTES_ID, 1); }
        private Object readResolve() { return BYTES; }
    }

    static final class UuidSerializer implements TypeSerializer<UUID> {
        private static final long serialVersionUID = 1L;
        @Override public void serialize(UUID v, DataOutputBuffer out) {
            out.writeLong(v.getMostSignificantBits());
            out.writeLong(v.getLeastSignificantBits());
        }
        @Override public UUID deserialize(DataInputBuffer in) {
            long most = in.readLong();
            return new UUID(most, in.readLong());
        }
        @Override public UUID copy(UUID v) { return v; }
        @Override public String typeName() { return "UUID"; }
        @Override public SerializerIdentity identity() { return SerializerIdentity.of(UUID_ID, 1); }
        private Object readResolve() { return UUID; }
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
        @Override public Tuple2<A, B> copy(Tuple2<A, B> v) {
            if (v == null) {
                return null;
            }
            A x = a.copy(v.f0());
            B y = b.copy(v.f1());
            return x == v.f0() && y == v.f1() ? v : new Tuple2<>(x, y);
        }
        @Override public String typeName() { return "Tuple2<" + a.typeName() + ", " + b.typeName() + ">"; }
        @Override public SerializerIdentity identity() { return new SerializerIdentity(TUPLE2_ID, 1, null, List.of(a, b)); }
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
        @Override public List<T> copy(List<T> v) {
            if (v == null) {
                return null;
            }
            List<T> list = new ArrayList<>(v.size());
            for (T t : v) {
                list.add(element.copy(t));
            }
            return list;
        }
        @Override public String typeName() { return "List<" + element.typeName() + ">"; }
        @Override public SerializerIdentity identity() { return new SerializerIdentity(LIST_ID, 1, null, List.of(element)); }
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
        @Override public T copy(T v) { return v == null ? null : inner.copy(v); }
        @Override public String typeName() { return inner.typeName() + "?"; }
        @Override public SerializerIdentity identity() { return new SerializerIdentity(NULLABLE_ID, 1, null, List.of(inner)); }
    }
}
