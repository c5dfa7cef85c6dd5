package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * User code may mutate the objects it got from state ({@code acc.n++; state.update(acc)}): a
 * snapshot holds the values of the moment it was taken ({@link HeapKeyedStateBackend#snapshot()},
 * the synchronous part on the task thread), however the objects change before the snapshot is
 * written on the I/O thread ({@link KeyedStateSnapshot#writeTo}).
 */
class MutableStateSnapshotTest {
    private static final int MAX = 128;

    /** A mutable counter holder, as users write them. */
    static final class Counter {
        long n;
    }

    /** A user serializer that does not override {@code copy}: the default copy must be used. */
    static final class CounterSerializer implements TypeSerializer<Counter> {
        @Override
        public void serialize(Counter value, DataOutputBuffer out) {
            out.writeLong(value.n);
        }

        @Override
        public Counter deserialize(DataInputBuffer in) {
            Counter c = new Counter();
            c.n = in.readLong();
            return c;
        }
    }

    @Test
    void aValueMutatedAfterTheSynchronousPartIsWrittenWithItsSnapshotTimeValue() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        ValueStateDescriptor<Counter> descriptor = new ValueStateDescriptor<>("count", new CounterSerializer());
        ValueState<Counter> state = backend.getValueState(descriptor);
        backend.setCurrentKey("k");
        Counter acc = new Counter();
        acc.n = 5;
        state.update(acc);

        KeyedStateSnapshot snapshot = backend.snapshot();
        // The task goes on processing records while the I/O thread has not written the snapshot yet.
        Counter same = state.value();
        same.n++;
        state.update(same);
        acc.n = 1000;

        HeapKeyedStateBackend restored = restore(snapshot);
        restored.setCurrentKey("k");
        assertThat(restored.getValueState(descriptor).value().n).isEqualTo(5);
    }

    @Test
    void mutableListElementsAndMapValuesAreCopiedToo() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        ListStateDescriptor<long[]> listDescriptor = new ListStateDescriptor<>("arrays", new LongArraySerializer());
        MapStateDescriptor<String, List<Long>> mapDescriptor =
                new MapStateDescriptor<>("lists", Serializers.STRING, Serializers.list(Serializers.LONG));
        ValueStateDescriptor<Object> dynamicDescriptor = new ValueStateDescriptor<>("dynamic");
        ListState<long[]> list = backend.getListState(listDescriptor);
        MapState<String, List<Long>> map = backend.getMapState(mapDescriptor);
        ValueState<Object> dynamic = backend.getValueState(dynamicDescriptor);
        backend.setCurrentKey(1L);
        long[] array = {1, 2};
        list.add(array);
        List<Long> longs = new ArrayList<>(List.of(7L));
        map.put("a", longs);
        byte[] bytes = {1, 2, 3};
        List<Object> nested = new ArrayList<>(List.of(bytes));
        dynamic.update(nested);

        KeyedStateSnapshot snapshot = backend.snapshot();
        array[0] = 99;
        longs.add(8L);
        bytes[0] = 42;
        nested.add("more");

        HeapKeyedStateBackend restored = restore(snapshot);
        restored.setCurrentKey(1L);
        assertThat(restored.getListState(listDescriptor).get()).singleElement().isEqualTo(new long[] {1, 2});
        assertThat(restored.getMapState(mapDescriptor).entries()).containsExactly(Map.entry("a", List.of(7L)));
        assertThat((List<?>) restored.getValueState(dynamicDescriptor).value()).singleElement()
                .isEqualTo(new byte[] {1, 2, 3});
    }

    static final class LongArraySerializer implements TypeSerializer<long[]> {
        @Override
        public void serialize(long[] value, DataOutputBuffer out) {
            out.writeVarInt(value.length);
            for (long v : value) {
                out.writeLong(v);
            }
        }

        @Override
        public long[] deserialize(DataInputBuffer in) {
            long[] v = new long[in.readVarInt()];
            for (int i = 0; i < v.length; i++) {
                v[i] = in.readLong();
            }
            return v;
        }
    }

    private static HeapKeyedStateBackend restore(KeyedStateSnapshot snapshot) {
        DataOutputBuffer out = new DataOutputBuffer(64);
        snapshot.writeTo(out);
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        restored.restore(List.of(new DataInputBuffer(out.toByteArray())));
        return restored;
    }
}
