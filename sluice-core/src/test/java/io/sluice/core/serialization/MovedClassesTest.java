package io.sluice.core.serialization;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.tuple.Tuple2;
import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/**
 * Serializers that snapshots recorded by Java serialization before {@code Tuple2} moved to
 * {@code io.sluice.api.tuple} still restore, although their default version id changed with the move.
 */
class MovedClassesTest {
    @Test
    void aSerializerOfTuplesRecordedBeforeTheMoveRestores() throws IOException {
        byte[] bytes;
        try (InputStream in = getClass().getResourceAsStream("pair-serializer-858f2ac.bin")) {
            bytes = in.readAllBytes();
        }

        TypeSerializer<Object> serializer = SerializerRegistry.read(new DataInputBuffer(bytes), getClass().getClassLoader());

        assertThat(serializer).isInstanceOf(LegacyPairSerializer.class);
        assertThat(serializer.copy(new Tuple2<>(3L, 4L))).isEqualTo(new Tuple2<>(3L, 4L));
    }

    @Test
    void theMovesAloneDoNotMakeAClassReadable() {
        long today = java.io.ObjectStreamClass.lookup(LegacyPairSerializer.class).getSerialVersionUID();

        assertThat(MovedClasses.sameVersionBeforeTheMoves(LegacyPairSerializer.class, today + 1)).isFalse();
        assertThat(MovedClasses.currentName("io.sluice.api.Tuple2")).isEqualTo("io.sluice.api.tuple.Tuple2");
        assertThat(MovedClasses.currentName("io.sluice.cluster.SlotPool$Listener")).isEqualTo("io.sluice.slots.SlotPool$Listener");
        assertThat(MovedClasses.currentName("io.sluice.api.DataStream")).isEqualTo("io.sluice.api.DataStream");
    }
}
