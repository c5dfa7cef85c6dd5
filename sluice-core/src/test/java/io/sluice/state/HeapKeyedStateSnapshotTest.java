package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.Serializers;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class HeapKeyedStateSnapshotTest {
    private static final int MAX = 128;
    private static final ValueStateDescriptor<Long> COUNT = new ValueStateDescriptor<>("count", Serializers.LONG);
    private static final ListStateDescriptor<String> EVENTS = new ListStateDescriptor<>("events", Serializers.STRING);
    private static final MapStateDescriptor<String, Long> TOTALS =
            new MapStateDescriptor<>("totals", Serializers.STRING, Serializers.LONG);

    /** What the test put into state, per key, to compare a restored backend against. */
    private record Expected(Map<Object, Long> counts, Map<Object, List<String>> events,
            Map<Object, Map<String, Long>> totals) {
        Expected() {
            this(new HashMap<>(), new HashMap<>(), new HashMap<>());
        }

        long keysWithState() {
            return counts.size() + events.size() + totals.size();
        }
    }

    @Test
    void changesAfterSnapshotDoNotAppearInTheWrittenSnapshot() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        ValueState<Long> count = backend.getValueState(COUNT);
        ListState<String> events = backend.getListState(EVENTS);
        MapState<String, Long> totals = backend.getMapState(TOTALS);
        backend.setCurrentKey("a");
        count.update(1L);
        events.add("e1");
        totals.put("x", 1L);
        backend.setCurrentKey("b");
        count.update(2L);

        KeyedStateSnapshot snapshot = backend.snapshot();

        backend.setCurrentKey("a");
        count.update(100L);
        events.add("e2");
        totals.put("x", 100L);
        totals.put("y", 5L);
        backend.setCurrentKey("b");
        count.clear();
        backend.setCurrentKey("c");
        count.update(3L);
        events.add("c1");

        HeapKeyedStateBackend restored = restore(KeyGroupRange.of(0, MAX - 1), write(snapshot));
        ValueState<Long> rCount = restored.getValueState(COUNT);
        ListState<String> rEvents = restored.getListState(EVENTS);
        MapState<String, Long> rTotals = restored.getMapState(TOTALS);
        restored.setCurrentKey("a");
        assertThat(rCount.value()).isEqualTo(1L);
        assertThat(rEvents.get()).containsExactly("e1");
        assertThat(rTotals.entries()).containsExactly(Map.entry("x", 1L));
        restored.setCurrentKey("b");
        assertThat(rCount.value()).isEqualTo(2L);
        restored.setCurrentKey("c");
        assertThat(rCount.value()).isNull();
        assertThat(rEvents.get()).isEmpty();
        assertThat(restored.numberOfKeys()).isEqualTo(4);
    }

    @Test
    void snapshotRestoresToEqualState() {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("snapshotRestoresToEqualState seed " + seed + " (rerun with -Dsluice.test.seed=" + seed + ")");
        Random random = new Random(seed);
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        Expected expected = fillRandomly(backend, random, 500);

        HeapKeyedStateBackend restored = restore(KeyGroupRange.of(0, MAX - 1), write(backend.snapshot()));

        assertThat(restored.numberOfKeys()).as("seed %d", seed).isEqualTo(expected.keysWithState());
        assertContains(restored, expected, seed);
    }

    @Test
    void restoredStatesAreRegisteredAndUsableWithoutTheirDescriptors() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        backend.getValueState(COUNT);
        ValueState<Long> other = backend.getValueState(new ValueStateDescriptor<>("other", Serializers.LONG));
        backend.setCurrentKey(7L);
        other.update(42L);

        HeapKeyedStateBackend restored = restore(KeyGroupRange.of(0, MAX - 1), write(backend.snapshot()));
        // "other" is never asked for again, yet survives the next checkpoint
        HeapKeyedStateBackend again = restore(KeyGroupRange.of(0, MAX - 1), write(restored.snapshot()));
        again.setCurrentKey(7L);
        assertThat(again.getValueState(new ValueStateDescriptor<Long>("other")).value()).isEqualTo(42L);
        assertThatThrownBy(() -> again.getListState(new ListStateDescriptor<Long>("other")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'other'");
    }

    @Test
    void rescaleFromOneToThreeSubtasksMovesEveryKeyToTheSubtaskThatOwnsItsGroup() {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("rescale seed " + seed + " (rerun with -Dsluice.test.seed=" + seed + ")");
        Random random = new Random(seed);
        HeapKeyedStateBackend source = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        ValueState<Long> count = source.getValueState(COUNT);
        Map<Long, Long> expected = new HashMap<>();
        while (expected.size() < 1000) {
            long key = random.nextLong();
            long value = random.nextLong();
            source.setCurrentKey(key);
            count.update(value);
            expected.put(key, value);
        }
        byte[] bytes = write(source.snapshot());

        int parallelism = 3;
        List<HeapKeyedStateBackend> targets = new ArrayList<>();
        for (int i = 0; i < parallelism; i++) {
            targets.add(restore(KeyGroups.rangeForSubtask(i, MAX, parallelism), bytes));
        }

        long restoredKeys = 0;
        for (HeapKeyedStateBackend target : targets) {
            restoredKeys += target.numberOfKeys();
        }
        assertThat(restoredKeys).as("seed %d", seed).isEqualTo(expected.size());
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            int owner = KeyGroups.subtaskForKeyGroup(KeyGroups.keyGroupFor(e.getKey(), MAX), MAX, parallelism);
            int holders = 0;
            for (int i = 0; i < parallelism; i++) {
                HeapKeyedStateBackend target = targets.get(i);
                if (!target.keyGroupRange().contains(KeyGroups.keyGroupFor(e.getKey(), MAX))) {
                    continue; // setCurrentKey would reject the key: it cannot be there
                }
                target.setCurrentKey(e.getKey());
                Long value = target.getValueState(COUNT).value();
                if (value != null) {
                    holders++;
                    assertThat(i).as("backend holding key %d, seed %d", e.getKey(), seed).isEqualTo(owner);
                    assertThat(value).as("value of key %d, seed %d", e.getKey(), seed).isEqualTo(e.getValue());
                }
            }
            assertThat(holders).as("backends holding key %d, seed %d", e.getKey(), seed).isEqualTo(1);
        }
    }

    @Test
    void scaleInMergesSnapshotsOfSeveralSubtasks() {
        long seed = Long.getLong("sluice.test.seed", System.nanoTime());
        System.out.println("scaleIn seed " + seed + " (rerun with -Dsluice.test.seed=" + seed + ")");
        Random random = new Random(seed);
        Expected expected = new Expected();
        List<DataInputBuffer> snapshots = new ArrayList<>();
        int parallelism = 3;
        for (int i = 0; i < parallelism; i++) {
            HeapKeyedStateBackend subtask = new HeapKeyedStateBackend(KeyGroups.rangeForSubtask(i, MAX, parallelism), MAX);
            Expected part = fillRandomly(subtask, random, 200);
            expected.counts().putAll(part.counts());
            expected.events().putAll(part.events());
            expected.totals().putAll(part.totals());
            snapshots.add(new DataInputBuffer(write(subtask.snapshot())));
        }
        HeapKeyedStateBackend merged = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        merged.restore(snapshots);

        assertThat(merged.numberOfKeys()).as("seed %d", seed).isEqualTo(expected.keysWithState());
        assertContains(merged, expected, seed);
    }

    @Test
    void overlappingSnapshotsAreRejected() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        backend.getValueState(COUNT);
        backend.setCurrentKey("k");
        backend.getValueState(COUNT).update(1L);
        byte[] bytes = write(backend.snapshot());
        HeapKeyedStateBackend target = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> target.restore(List.of(new DataInputBuffer(bytes), new DataInputBuffer(bytes))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("overlap");
    }

    @Test
    void unknownFormatVersionIsRejected() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        backend.getValueState(COUNT);
        byte[] bytes = write(backend.snapshot());
        bytes[7] = 99; // the version int follows the 4-byte marker

        HeapKeyedStateBackend target = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> target.restore(List.of(new DataInputBuffer(bytes))))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("format version 99")
                .hasMessageContaining("versions 1 to " + KeyedSnapshotFormat.VERSION);
    }

    @Test
    void dataThatIsNotASnapshotIsRejected() {
        HeapKeyedStateBackend target = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> target.restore(List.of(new DataInputBuffer(new byte[] {1, 2, 3, 4, 0, 0, 0, 1}))))
                .isInstanceOf(SerializationException.class)
                .hasMessageContaining("not a keyed-state snapshot");
    }

    @Test
    void otherMaxParallelismIsRejected() {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, 63), 64);
        byte[] bytes = write(backend.snapshot());
        HeapKeyedStateBackend target = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        assertThatThrownBy(() -> target.restore(List.of(new DataInputBuffer(bytes))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("max parallelism 64");
    }

    @Test
    void restoreAfterRegisteringStateIsRejected() {
        HeapKeyedStateBackend target = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        target.getValueState(COUNT);
        assertThatThrownBy(() -> target.restore(List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("count");
    }

    private static Expected fillRandomly(HeapKeyedStateBackend backend, Random random, int keys) {
        ValueState<Long> count = backend.getValueState(COUNT);
        ListState<String> events = backend.getListState(EVENTS);
        MapState<String, Long> totals = backend.getMapState(TOTALS);
        Expected expected = new Expected();
        KeyGroupRange range = backend.keyGroupRange();
        int added = 0;
        while (added < keys) {
            Object key = random.nextBoolean() ? (Object) random.nextLong() : "key-" + random.nextInt(1_000_000);
            if (!range.contains(KeyGroups.keyGroupFor(key, backend.maxParallelism()))
                    || expected.counts().containsKey(key) || expected.events().containsKey(key)
                    || expected.totals().containsKey(key)) {
                continue;
            }
            added++;
            backend.setCurrentKey(key);
            if (random.nextInt(3) > 0) {
                long v = random.nextLong();
                count.update(v);
                expected.counts().put(key, v);
            }
            if (random.nextInt(3) > 0) {
                List<String> list = new ArrayList<>();
                for (int i = 1 + random.nextInt(4); i > 0; i--) {
                    String e = "e" + random.nextInt(100);
                    events.add(e);
                    list.add(e);
                }
                expected.events().put(key, list);
            }
            if (random.nextInt(3) > 0) {
                Map<String, Long> map = new HashMap<>();
                for (int i = 1 + random.nextInt(4); i > 0; i--) {
                    String k = "m" + random.nextInt(10);
                    long v = random.nextLong();
                    totals.put(k, v);
                    map.put(k, v);
                }
                expected.totals().put(key, map);
            }
        }
        return expected;
    }

    private static void assertContains(HeapKeyedStateBackend backend, Expected expected, long seed) {
        ValueState<Long> count = backend.getValueState(COUNT);
        ListState<String> events = backend.getListState(EVENTS);
        MapState<String, Long> totals = backend.getMapState(TOTALS);
        for (Map.Entry<Object, Long> e : expected.counts().entrySet()) {
            backend.setCurrentKey(e.getKey());
            assertThat(count.value()).as("count of %s, seed %d", e.getKey(), seed).isEqualTo(e.getValue());
        }
        for (Map.Entry<Object, List<String>> e : expected.events().entrySet()) {
            backend.setCurrentKey(e.getKey());
            assertThat(events.get()).as("events of %s, seed %d", e.getKey(), seed).containsExactlyElementsOf(e.getValue());
        }
        for (Map.Entry<Object, Map<String, Long>> e : expected.totals().entrySet()) {
            backend.setCurrentKey(e.getKey());
            Map<String, Long> actual = new HashMap<>();
            totals.entries().forEach(entry -> actual.put(entry.getKey(), entry.getValue()));
            assertThat(actual).as("totals of %s, seed %d", e.getKey(), seed).isEqualTo(e.getValue());
        }
    }

    private static byte[] write(KeyedStateSnapshot snapshot) {
        DataOutputBuffer out = new DataOutputBuffer(64);
        snapshot.writeTo(out);
        return out.toByteArray();
    }

    private static HeapKeyedStateBackend restore(KeyGroupRange range, byte[] bytes) {
        HeapKeyedStateBackend backend = new HeapKeyedStateBackend(range, MAX);
        backend.restore(List.of(new DataInputBuffer(bytes)));
        return backend;
    }
}
