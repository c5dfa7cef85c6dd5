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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Snapshots share the per-key lists and maps of immutable values with the live state, and the state
 * copies such a container before changing it (copy-on-write): a snapshot written while (or after)
 * the task changes its state holds exactly the state of the moment it was taken.
 */
class CopyOnWriteSnapshotTest {
    private static final int MAX = 128;
    private static final ValueStateDescriptor<Long> COUNT = new ValueStateDescriptor<>("count", Serializers.LONG);
    private static final ListStateDescriptor<String> EVENTS = new ListStateDescriptor<>("events", Serializers.STRING);
    private static final MapStateDescriptor<Long, Long> TIMES =
            new MapStateDescriptor<>("times", Serializers.LONG, Serializers.LONG);

    private final HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
    private final ValueState<Long> count = backend.getValueState(COUNT);
    private final ListState<String> events = backend.getListState(EVENTS);
    private final MapState<Long, Long> times = backend.getMapState(TIMES);

    /** The state as plain maps: per key, count, events and times. */
    private record Model(Map<Long, Long> counts, Map<Long, List<String>> events, Map<Long, Map<Long, Long>> times) {
        Model() {
            this(new HashMap<>(), new HashMap<>(), new HashMap<>());
        }

        Model copy() {
            Model m = new Model();
            m.counts.putAll(counts);
            events.forEach((k, v) -> m.events.put(k, new ArrayList<>(v)));
            times.forEach((k, v) -> m.times.put(k, new HashMap<>(v)));
            return m;
        }
    }

    @Test
    void everyKindOfChangeAfterASnapshotLeavesTheSharedContainersAsTheyWere() {
        backend.setCurrentKey(1L);
        events.add("a");
        times.put(10L, 1L);
        times.put(20L, 2L);
        backend.setCurrentKey(2L);
        events.add("b");
        times.put(30L, 3L);
        backend.setCurrentKey(3L);
        times.put(40L, 4L);

        KeyedStateSnapshot snapshot = backend.snapshot();

        backend.setCurrentKey(1L);
        events.add("a2");                       // append to a shared list
        times.put(10L, 100L);                   // overwrite in a shared map
        times.remove(20L);                      // remove from a shared map
        backend.setCurrentKey(2L);
        events.update(List.of("replaced"));     // replace a shared list
        times.remove(30L);                      // empty a shared map: the key leaves the state
        backend.setCurrentKey(3L);
        times.clear();
        backend.setCurrentKey(4L);
        times.put(50L, 5L);                     // a new key

        Model expected = new Model();
        expected.events.put(1L, List.of("a"));
        expected.events.put(2L, List.of("b"));
        expected.times.put(1L, Map.of(10L, 1L, 20L, 2L));
        expected.times.put(2L, Map.of(30L, 3L));
        expected.times.put(3L, Map.of(40L, 4L));
        assertThat(read(restore(snapshot), List.of(1L, 2L, 3L, 4L))).isEqualTo(expected);

        Model live = new Model();
        live.events.put(1L, List.of("a", "a2"));
        live.events.put(2L, List.of("replaced"));
        live.times.put(1L, Map.of(10L, 100L));
        live.times.put(4L, Map.of(50L, 5L));
        assertThat(read(backend, List.of(1L, 2L, 3L, 4L))).as("the live state has every change").isEqualTo(live);
    }

    @Test
    void aContainerSharedByTwoSnapshotsIsCopiedOnceAndBothSnapshotsKeepTheirContents() {
        backend.setCurrentKey(7L);
        times.put(1L, 1L);
        KeyedStateSnapshot first = backend.snapshot();
        KeyedStateSnapshot second = backend.snapshot(); // unchanged in between: shared by both
        times.put(2L, 2L);
        KeyedStateSnapshot third = backend.snapshot();
        times.put(1L, 10L);

        assertThat(read(restore(first), List.of(7L)).times()).containsExactly(Map.entry(7L, Map.of(1L, 1L)));
        assertThat(read(restore(second), List.of(7L)).times()).containsExactly(Map.entry(7L, Map.of(1L, 1L)));
        assertThat(read(restore(third), List.of(7L)).times()).containsExactly(Map.entry(7L, Map.of(1L, 1L, 2L, 2L)));
        assertThat(read(backend, List.of(7L)).times()).containsExactly(Map.entry(7L, Map.of(1L, 10L, 2L, 2L)));
    }

    @Test
    void equalKeysThatAreDifferentObjectsSeeTheSameStateThroughTheCurrentKeyCache() {
        Long one = Long.valueOf(100_000L);
        Long same = Long.valueOf(100_000L);
        assertThat(one).isNotSameAs(same);
        backend.setCurrentKey(one);
        times.put(1L, 1L);
        backend.setCurrentKey(same);
        assertThat(times.get(1L)).isEqualTo(1L);
        times.remove(1L);
        backend.setCurrentKey(one);
        assertThat(times.isEmpty()).as("removed through an equal key").isTrue();
        events.add("x");
        backend.setCurrentKey(same);
        events.clear();
        backend.setCurrentKey(one);
        assertThat(events.get()).isEmpty();
        assertThat(backend.numberOfKeys()).isZero();
    }

    /**
     * The task thread keeps changing every kind of state while another thread writes the snapshot
     * (each round at least until the writer is done, and at least 5,000 changes); the written
     * snapshot equals the model of the moment it was taken. Seeded; the seed is printed.
     */
    @Test
    void snapshotsWrittenWhileTheTaskChangesItsStateHoldTheStateOfTheirMoment() throws Exception {
        long seed = System.nanoTime();
        System.out.println("CopyOnWriteSnapshotTest seed " + seed);
        Random random = new Random(seed);
        List<Long> keys = new ArrayList<>();
        for (long k = 0; k < 500; k++) {
            keys.add(k);
        }
        Model model = new Model();
        for (int i = 0; i < 5_000; i++) {
            change(random, model);
        }
        for (int round = 0; round < 10; round++) {
            KeyedStateSnapshot snapshot = backend.snapshot();
            Model atSnapshot = model.copy();
            AtomicBoolean written = new AtomicBoolean();
            CompletableFuture<byte[]> bytes = CompletableFuture.supplyAsync(() -> {
                DataOutputBuffer out = new DataOutputBuffer(4096);
                snapshot.writeTo(out);
                written.set(true);
                return out.toByteArray();
            });
            int changes = 0;
            while (!written.get() || changes < 5_000) {
                change(random, model);
                changes++;
            }
            byte[] data = bytes.get(30, TimeUnit.SECONDS);
            HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
            restored.restore(List.of(new DataInputBuffer(data)));
            assertThat(read(restored, keys)).as("round %d, seed %d", round, seed).isEqualTo(atSnapshot);
        }
        assertThat(read(backend, keys)).as("the live state, seed %d", seed).isEqualTo(model);
    }

    /** One random change to the backend, mirrored in {@code model}. */
    private void change(Random random, Model model) {
        Long key = (long) random.nextInt(500);
        backend.setCurrentKey(key);
        switch (random.nextInt(8)) {
            case 0 -> {
                long v = random.nextInt(1000);
                count.update(v);
                model.counts.put(key, v);
            }
            case 1 -> {
                String e = "e" + random.nextInt(100);
                events.add(e);
                model.events.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
            }
            case 2 -> {
                if (random.nextInt(4) == 0) {
                    events.clear();
                    model.events.remove(key);
                } else {
                    List<String> list = List.of("u" + random.nextInt(100), "v");
                    events.update(list);
                    model.events.put(key, new ArrayList<>(list));
                }
            }
            case 3, 4 -> {
                long t = random.nextInt(8);
                long v = random.nextInt(1000);
                times.put(t, v);
                model.times.computeIfAbsent(key, k -> new HashMap<>()).put(t, v);
            }
            case 5 -> {
                long t = random.nextInt(8);
                times.remove(t);
                Map<Long, Long> m = model.times.get(key);
                if (m != null && m.remove(t) != null && m.isEmpty()) {
                    model.times.remove(key);
                }
            }
            case 6 -> {
                times.clear();
                model.times.remove(key);
            }
            default -> {
                count.clear();
                model.counts.remove(key);
            }
        }
    }

    private static HeapKeyedStateBackend restore(KeyedStateSnapshot snapshot) {
        DataOutputBuffer out = new DataOutputBuffer(256);
        snapshot.writeTo(out);
        HeapKeyedStateBackend restored = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX - 1), MAX);
        restored.restore(List.of(new DataInputBuffer(out.toByteArray())));
        return restored;
    }

    private static Model read(HeapKeyedStateBackend b, List<Long> keys) {
        ValueState<Long> c = b.getValueState(COUNT);
        ListState<String> l = b.getListState(EVENTS);
        MapState<Long, Long> m = b.getMapState(TIMES);
        Model model = new Model();
        for (Long key : keys) {
            b.setCurrentKey(key);
            if (c.value() != null) {
                model.counts.put(key, c.value());
            }
            List<String> list = new ArrayList<>();
            l.get().forEach(list::add);
            if (!list.isEmpty()) {
                model.events.put(key, list);
            }
            Map<Long, Long> map = new HashMap<>();
            m.entries().forEach(e -> map.put(e.getKey(), e.getValue()));
            if (!map.isEmpty()) {
                model.times.put(key, map);
            }
        }
        return model;
    }
}
