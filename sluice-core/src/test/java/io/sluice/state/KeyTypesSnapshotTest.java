package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Keys of records, enums and UUIDs snapshot and restore, with the default and with declared key serializers. */
class KeyTypesSnapshotTest {
    private static final int MAX = 128;
    private static final ValueStateDescriptor<Long> COUNT = new ValueStateDescriptor<>("count", Serializers.LONG);

    enum Color { RED, GREEN, BLUE }

    record Point(int x, String label) {}

    record Tagged(Color color, long id) {}

    @Test
    void enumKeysWithTheDefaultKeySerializer() {
        roundTrip(Serializers.dynamic(), List.of(Color.RED, Color.GREEN, Color.BLUE));
    }

    @Test
    void uuidKeysWithTheDefaultKeySerializer() {
        roundTrip(Serializers.dynamic(), List.of(UUID.randomUUID(), UUID.randomUUID(), new UUID(0, 1)));
    }

    @Test
    void recordKeysWithTheDefaultKeySerializer() {
        roundTrip(Serializers.dynamic(), List.of(new Point(1, "a"), new Point(2, "b"), new Tagged(Color.BLUE, 3)));
    }

    @Test
    void declaredKeySerializers() {
        roundTrip(Serializers.enumOf(Color.class), List.of(Color.BLUE, Color.RED));
        roundTrip(Serializers.UUID, List.of(UUID.randomUUID()));
        roundTrip(Serializers.record(Point.class), List.of(new Point(5, "x"), new Point(6, "y")));
    }

    @Test
    void enumKeysHashByNameSoTheirKeyGroupIsTheSameInEveryJvm() {
        assertThat(KeyGroups.stableHashCode(Color.GREEN)).isEqualTo("GREEN".hashCode());
        assertThat(KeyGroups.stableHashCode(new Tagged(Color.RED, 7)))
                .isEqualTo(31 * "RED".hashCode() + Long.hashCode(7));
        // Records without enums keep their hashCode, so existing key groups do not move.
        assertThat(KeyGroups.stableHashCode(new Point(1, "a"))).isEqualTo(new Point(1, "a").hashCode());
    }

    private static void roundTrip(TypeSerializer<?> keySerializer, List<Object> keys) {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX, keySerializer);
        ValueState<Long> count = backend.getValueState(COUNT);
        for (int i = 0; i < keys.size(); i++) {
            backend.setCurrentKey(keys.get(i));
            count.update((long) i);
        }
        DataOutputBuffer out = new DataOutputBuffer(64);
        backend.snapshot().writeTo(out);

        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX, keySerializer);
        restored.restore(List.of(new DataInputBuffer(out.toByteArray())));
        ValueState<Long> rCount = restored.getValueState(COUNT);
        assertThat(restored.numberOfKeys()).isEqualTo(keys.size());
        for (int i = 0; i < keys.size(); i++) {
            restored.setCurrentKey(keys.get(i));
            assertThat(rCount.value()).as("key %s", keys.get(i)).isEqualTo(i);
        }
    }
}
