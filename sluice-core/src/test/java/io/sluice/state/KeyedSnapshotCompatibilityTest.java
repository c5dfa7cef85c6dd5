package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A keyed snapshot written by Sluice before key groups came from {@code StableHash} restores with this
 * one. The resource {@code compat/keyed-snapshot-before-stable-hash.bin} was written by {@link #write}
 * on the main branch at 423a0fb. Its keys (longs, strings, records of those, an enum and a record with
 * an enum, all of which hashed stably then) are in the key groups they were written in, with their
 * values, on one subtask and split over two.
 */
class KeyedSnapshotCompatibilityTest {
    static final String RESOURCE = "/compat/keyed-snapshot-before-stable-hash.bin";
    static final int MAX = 128;
    static final ValueStateDescriptor<Long> COUNT = new ValueStateDescriptor<>("count", Serializers.LONG);

    /** The key classes of the snapshot: their names are in it, so they must keep them. */
    enum Shade { LIGHT, DARK }

    record Visit(long user, String page) {}

    record Nested(Visit visit, String tag, int n) {}

    record Shaded(Shade shade, long id) {}

    /** The keys of the snapshot; key {@code i} has the value {@code 1000 + i}. */
    static List<Object> keys() {
        List<Object> keys = new ArrayList<>();
        for (long i = -20; i < 40; i++) {
            keys.add(i * 7_919L);
        }
        for (int i = 0; i < 40; i++) {
            keys.add("key-" + i);
        }
        keys.add("");
        keys.add("\u00e9t\u00e9 \u2603");
        for (int i = 0; i < 20; i++) {
            keys.add(new Visit(i * 31L, "/page/" + i));
            keys.add(new Nested(new Visit(i, "p" + i), "t" + (i % 3), i));
        }
        keys.add(Shade.DARK);
        keys.add(new Shaded(Shade.LIGHT, 5));
        return keys;
    }

    /** Writes the snapshot (how the resource was made, with the build before the change). */
    static byte[] write() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX,
                Serializers.dynamic());
        ValueState<Long> count = backend.getValueState(COUNT);
        List<Object> keys = keys();
        for (int i = 0; i < keys.size(); i++) {
            backend.setCurrentKey(keys.get(i));
            count.update(1000L + i);
        }
        DataOutputBuffer out = new DataOutputBuffer(4096);
        backend.snapshot().writeTo(out);
        return out.toByteArray();
    }

    @Test
    void aSnapshotOfTheBuildBeforeStableHashRestoresOnOneSubtask() throws IOException {
        byte[] bytes = resource();
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX,
                Serializers.dynamic());
        restored.restore(List.of(new DataInputBuffer(bytes)));
        assertThat(restored.numberOfKeys()).isEqualTo(keys().size());
        assertValues(restored, keys());
    }

    @Test
    void aSnapshotOfTheBuildBeforeStableHashRestoresSplitOverTwoSubtasks() throws IOException {
        byte[] bytes = resource();
        List<Object> keys = keys();
        int total = 0;
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyGroupRange range = KeyGroups.rangeForSubtask(subtask, MAX, 2);
            HeapKeyedStateBackend restored = new HeapKeyedStateBackend(range, MAX, Serializers.dynamic());
            restored.restore(List.of(new DataInputBuffer(bytes)));
            List<Object> own = keys.stream().filter(k -> range.contains(KeyGroups.keyGroupFor(k, MAX))).toList();
            assertThat(restored.numberOfKeys()).as("keys of subtask %d", subtask).isEqualTo(own.size());
            assertValues(restored, own);
            total += own.size();
        }
        assertThat(total).isEqualTo(keys.size());
    }

    private static void assertValues(HeapKeyedStateBackend restored, List<Object> keys) {
        List<Object> all = keys();
        ValueState<Long> count = restored.getValueState(COUNT);
        for (Object key : keys) {
            restored.setCurrentKey(key);
            assertThat(count.value()).as("key %s", key).isEqualTo(1000L + all.indexOf(key));
        }
    }

    private static byte[] resource() throws IOException {
        try (InputStream in = KeyedSnapshotCompatibilityTest.class.getResourceAsStream(RESOURCE)) {
            assertThat(in).as(RESOURCE).isNotNull();
            return in.readAllBytes();
        }
    }
}
