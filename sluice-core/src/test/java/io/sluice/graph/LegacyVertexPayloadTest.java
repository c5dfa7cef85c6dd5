package io.sluice.graph;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.core.serialization.Serializers;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * A job graph persisted in the HA store by the build before serializers had stable ids holds the
 * built-in serializers as the anonymous classes {@code Serializers$1..$6}, which no longer exist:
 * {@code vertex-payload-v1.bin}, written by that build (commit {@code da9678d}), still deserializes,
 * to today's serializers.
 */
class LegacyVertexPayloadTest {
    @Test
    void aPayloadWrittenByThePreviousBuildDeserializesToTodaysSerializers() throws IOException {
        byte[] bytes;
        try (InputStream in = getClass().getResourceAsStream("vertex-payload-v1.bin")) {
            bytes = in.readAllBytes();
        }

        VertexPayload payload = VertexPayload.deserialize(bytes, getClass().getClassLoader(), "v");

        assertThat(payload.inputSerializers().get(1)).isSameAs(Serializers.LONG);
        assertThat(payload.inputSerializers().get(2)).isEqualTo(Serializers.tuple2(Serializers.STRING, Serializers.dynamic()));
        assertThat(payload.outputs().get(3).serializer()).isEqualTo(Serializers.list(Serializers.INT));
        assertThat(payload.outputs().get(4).serializer()).isEqualTo(Serializers.nullable(Serializers.DOUBLE));
        assertThat(payload.outputs().get(5).serializer()).isSameAs(Serializers.BOOLEAN);
        assertThat(payload.outputs().get(6).serializer()).isSameAs(Serializers.BYTES);
        assertThat(payload.inputKeySerializer()).isNull();
    }
}
