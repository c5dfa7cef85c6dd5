package io.sluice.core.serialization;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.tuple.Tuple2;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SerializerRegistryTest {
    enum Level { LOW, HIGH }

    record Reading(String sensor, Level level, double value) {}

    private static TypeSerializer<Object> roundTrip(TypeSerializer<?> serializer) {
        DataOutputBuffer out = new DataOutputBuffer(64);
        SerializerRegistry.write(serializer, out);
        DataInputBuffer in = new DataInputBuffer(out.toByteArray());
        TypeSerializer<Object> back = SerializerRegistry.read(in, SerializerRegistryTest.class.getClassLoader());
        assertThat(in.hasRemaining()).isFalse();
        return back;
    }

    @Test
    void builtInSerializersAreRecordedByStableIdNotByJavaClassName() {
        List<TypeSerializer<?>> builtIns = List.of(Serializers.LONG, Serializers.INT, Serializers.DOUBLE,
                Serializers.BOOLEAN, Serializers.STRING, Serializers.BYTES, Serializers.UUID, Serializers.dynamic(),
                Serializers.tuple2(Serializers.LONG, Serializers.list(Serializers.nullable(Serializers.STRING))),
                Serializers.enumOf(Level.class), Serializers.record(Reading.class));
        for (TypeSerializer<?> s : builtIns) {
            DataOutputBuffer out = new DataOutputBuffer(64);
            SerializerRegistry.write(s, out);
            String written = new String(out.toByteArray(), StandardCharsets.ISO_8859_1);
            assertThat(written).as(s.typeName()).startsWith("\u0001").contains("sluice.")
                    .doesNotContain("Serializers$").doesNotContain("java.io");
            assertThat(roundTrip(s)).as(s.typeName()).isEqualTo(s);
        }
        assertThat(roundTrip(Serializers.LONG)).isSameAs(Serializers.LONG);
        assertThat(roundTrip(Serializers.dynamic())).isSameAs(Serializers.dynamic());
    }

    @Test
    void aUserSerializerWithoutIdentityIsRecordedWithJavaSerialization() {
        TypeSerializer<Object> back = roundTrip(Serializers.list(new UpperCaseSerializer()));
        DataOutputBuffer out = new DataOutputBuffer(8);
        back.serialize(List.of("a"), out);
        assertThat(back.deserialize(new DataInputBuffer(out.toByteArray()))).isEqualTo(List.of("A"));
    }

    @Test
    void anUnknownIdOrANewerVersionIsAClearError() {
        DataOutputBuffer out = new DataOutputBuffer(64);
        SerializerRegistry.write(new Identified("acme.unknown", 1), out);
        assertThatThrownBy(() -> SerializerRegistry.read(new DataInputBuffer(out.toByteArray()), null))
                .isInstanceOf(SerializationException.class).hasMessageContaining("'acme.unknown'")
                .hasMessageContaining("SerializerRegistry.register");

        DataOutputBuffer newer = new DataOutputBuffer(64);
        SerializerRegistry.write(new Identified("sluice.long", 7), newer);
        assertThatThrownBy(() -> SerializerRegistry.read(new DataInputBuffer(newer.toByteArray()), null))
                .isInstanceOf(SerializationException.class).hasMessageContaining("version 7 of serializer 'sluice.long'")
                .hasMessageContaining("up to version 1");
    }

    @Test
    void newTypesRoundTripThroughTheDynamicSerializer() {
        TypeSerializer<Object> d = Serializers.dynamic();
        List<Object> values = List.of(UUID.randomUUID(), Level.HIGH, new Reading("s1", Level.LOW, 2.5),
                Tuple2.of(Level.LOW, new Reading("s2", Level.HIGH, -1)));
        for (Object v : values) {
            DataOutputBuffer out = new DataOutputBuffer(64);
            d.serialize(v, out);
            assertThat(d.deserialize(new DataInputBuffer(out.toByteArray()))).isEqualTo(v);
            assertThat(d.copy(v)).isEqualTo(v);
        }
    }

    @Test
    void anEnumConstantThatNoLongerExistsIsNamed() {
        DataOutputBuffer out = new DataOutputBuffer(64);
        out.writeUTF("MEDIUM");
        assertThatThrownBy(() -> Serializers.enumOf(Level.class).deserialize(new DataInputBuffer(out.toByteArray())))
                .isInstanceOf(SerializationException.class).hasMessageContaining("MEDIUM").hasMessageContaining("LOW");
    }

    static final class UpperCaseSerializer implements TypeSerializer<String> {
        @Override
        public void serialize(String value, DataOutputBuffer out) {
            out.writeUTF(value.toUpperCase());
        }

        @Override
        public String deserialize(DataInputBuffer in) {
            return in.readUTF();
        }
    }

    /** A serializer claiming an identity, to write records this build cannot resolve. */
    record Identified(String id, int version) implements TypeSerializer<Object> {
        @Override
        public void serialize(Object value, DataOutputBuffer out) {}

        @Override
        public Object deserialize(DataInputBuffer in) {
            return null;
        }

        @Override
        public SerializerIdentity identity() {
            return SerializerIdentity.of(id, version);
        }
    }
}
