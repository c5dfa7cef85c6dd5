package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.errors.MaxParallelismMismatchException;
import io.sluice.api.errors.StateKindConflictException;
import io.sluice.api.errors.StateTypeChangedException;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.StateTtlConfig;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.api.tuple.Tuple2;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.Serializers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import io.sluice.util.Clock;
import io.sluice.util.ManualClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every keyed state backend must do, run against each: the heap here
 * ({@link HeapKeyedStateBackendContractTest}), RocksDB in sluice-state-rocksdb. Snapshots are in the
 * canonical format, so each backend also restores what the heap wrote and the heap restores what it
 * wrote (a job moves between backends), for any key-group range of the same max parallelism.
 */
public abstract class KeyedStateBackendContractTest {
    protected static final int MAX_PARALLELISM = 16;
    private final List<KeyedStateBackend> opened = new ArrayList<>();

    /** The processing time of every backend of a test (state time-to-live). */
    protected final ManualClock clock = new ManualClock(1_000_000);

    /** A new, empty backend of the kind under test, with the dynamic key serializer and processing time {@code clock}. */
    protected abstract KeyedStateBackend create(KeyGroupRange range, int maxParallelism, Clock clock);

    protected final KeyedStateBackend backend(KeyGroupRange range) {
        KeyedStateBackend b = create(range, MAX_PARALLELISM, clock);
        opened.add(b);
        return b;
    }

    protected final KeyedStateBackend backend() {
        return backend(KeyGroupRange.of(0, MAX_PARALLELISM - 1));
    }

    @AfterEach
    void closeBackends() {
        opened.forEach(KeyedStateBackend::close);
    }

    protected static byte[] snapshotBytes(KeyedStateBackend backend) {
        DataOutputBuffer out = new DataOutputBuffer(256);
        backend.snapshot().writeTo(out);
        return out.toByteArray();
    }

    @Test
    void valueStateIsPerKeyAndNullWhenAbsent() {
        KeyedStateBackend b = backend();
        ValueState<Long> count = b.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        b.setCurrentKey("a");
        assertThat(count.value()).isNull();
        count.update(1L);
        b.setCurrentKey("b");
        assertThat(count.value()).isNull();
        count.update(10L);
        b.setCurrentKey("a");
        assertThat(count.value()).isEqualTo(1L);
        count.update(count.value() + 1);
        assertThat(count.value()).isEqualTo(2L);
        assertThat(b.numberOfKeys()).isEqualTo(2);
        count.update(null);
        assertThat(count.value()).isNull();
        b.setCurrentKey("b");
        count.clear();
        assertThat(count.value()).isNull();
        assertThat(b.numberOfKeys()).isZero();
    }

    @Test
    void listStateKeepsOrderIsNeverNullAndDropsEmptyLists() {
        KeyedStateBackend b = backend();
        ListState<String> list = b.getListState(new ListStateDescriptor<>("events", Serializers.STRING));
        b.setCurrentKey(1L);
        assertThat(list.get()).isNotNull().isEmpty();
        list.add("x");
        list.add("y");
        list.add("");
        b.setCurrentKey(2L);
        list.update(List.of("p", "q"));
        b.setCurrentKey(1L);
        assertThat(list.get()).containsExactly("x", "y", "");
        list.update(List.of());
        assertThat(list.get()).isEmpty();
        assertThat(b.numberOfKeys()).isEqualTo(1);
        b.setCurrentKey(2L);
        assertThat(list.get()).containsExactly("p", "q");
        assertThatThrownBy(() -> list.add(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("'events'");
        list.clear();
        assertThat(b.numberOfKeys()).isZero();
    }

    @Test
    void mapStateEntriesPerKey() {
        KeyedStateBackend b = backend();
        MapState<String, Long> map = b.getMapState(new MapStateDescriptor<>("m", Serializers.STRING, Serializers.LONG));
        b.setCurrentKey("k1");
        assertThat(map.isEmpty()).isTrue();
        map.put("a", 1L);
        map.put("b", 2L);
        map.put("a", 3L);
        b.setCurrentKey("k2");
        map.put("z", 26L);
        assertThat(map.get("a")).isNull();
        b.setCurrentKey("k1");
        assertThat(map.get("a")).isEqualTo(3L);
        assertThat(map.contains("b")).isTrue();
        assertThat(map.contains("z")).isFalse();
        Map<String, Long> seen = new TreeMap<>();
        map.entries().forEach(e -> seen.put(e.getKey(), e.getValue()));
        assertThat(seen).isEqualTo(Map.of("a", 3L, "b", 2L));
        assertThat(map.keys()).containsExactlyInAnyOrder("a", "b");
        assertThat(map.values()).containsExactlyInAnyOrder(3L, 2L);
        map.remove("a");
        map.remove("not there");
        assertThat(map.keys()).containsExactly("b");
        map.remove("b");
        assertThat(map.isEmpty()).isTrue();
        assertThat(b.numberOfKeys()).isEqualTo(1);
        b.setCurrentKey("k2");
        map.clear();
        assertThat(map.isEmpty()).isTrue();
        assertThat(b.numberOfKeys()).isZero();
        assertThatThrownBy(() -> map.put("x", null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void mapStateIteratesLargeMaps() {
        KeyedStateBackend b = backend();
        MapState<Long, Long> map = b.getMapState(new MapStateDescriptor<>("big", Serializers.LONG, Serializers.LONG));
        b.setCurrentKey("k");
        for (long i = 0; i < 1000; i++) {
            map.put(i, i * i);
        }
        b.setCurrentKey("other");
        map.put(5L, 5L);
        b.setCurrentKey("k");
        long n = 0;
        long sum = 0;
        List<Long> seen = new ArrayList<>();
        for (Map.Entry<Long, Long> e : map.entries()) {
            n++;
            sum += e.getValue();
            seen.add(e.getKey());
        }
        assertThat(n).isEqualTo(1000);
        assertThat(sum).isEqualTo(332_833_500L);
        seen.forEach(map::remove);
        assertThat(map.isEmpty()).isTrue();
    }

    @Test
    void keysOfListsTheKeysOfOneState() {
        KeyedStateBackend b = backend();
        MapState<Long, Boolean> timers = b.getMapState(new MapStateDescriptor<>("timers", Serializers.LONG, Serializers.BOOLEAN));
        ValueState<String> other = b.getValueState(new ValueStateDescriptor<>("other", Serializers.STRING));
        for (String k : List.of("a", "b", "c")) {
            b.setCurrentKey(k);
            timers.put(1L, true);
            timers.put(2L, true);
        }
        b.setCurrentKey("d");
        other.update("x");
        assertThat(b.keysOf("timers")).containsExactlyInAnyOrder("a", "b", "c");
        assertThat(b.keysOf("other")).containsExactly("d");
        assertThat(b.keysOf("none")).isEmpty();
    }

    @Test
    void aKeyOfAnotherKeyGroupIsRefused() {
        KeyedStateBackend b = backend(KeyGroupRange.of(0, 3));
        Object outside = null;
        for (long k = 0; outside == null; k++) {
            if (KeyGroups.keyGroupFor(k, MAX_PARALLELISM) > 3) {
                outside = k;
            }
        }
        Object key = outside;
        assertThatThrownBy(() -> b.setCurrentKey(key)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outside this subtask's key groups [0, 3]");
    }

    @Test
    void aNameCannotBeTwoKinds() {
        KeyedStateBackend b = backend();
        b.getValueState(new ValueStateDescriptor<>("x", Serializers.LONG));
        assertThatThrownBy(() -> b.getListState(new ListStateDescriptor<>("x", Serializers.LONG)))
                .isInstanceOf(StateKindConflictException.class);
    }

    @Test
    void aSnapshotHoldsTheStateAtTheTimeItWasTakenWhateverHappensAfter() {
        KeyedStateBackend b = backend();
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        Map<Long, Long> expected = fill(b, v, l, m, 200, 0);
        KeyedStateSnapshot snapshot = b.snapshot();
        fill(b, v, l, m, 300, 1000); // after the snapshot: changes and new keys
        for (long k = 0; k < 50; k++) {
            b.setCurrentKey(k);
            v.clear();
            l.clear();
            m.clear();
        }
        DataOutputBuffer out = new DataOutputBuffer(256);
        snapshot.writeTo(out);

        KeyedStateBackend restored = backend();
        restored.restore(List.of(new DataInputBuffer(out.toByteArray())));
        assertHolds(restored, expected);
    }

    /** Writes keys 0..n-1: value k + offset, list [k, offset], map {k: "k"}; returns key -> value. */
    private static Map<Long, Long> fill(KeyedStateBackend b, ValueState<Long> v, ListState<Long> l,
                                        MapState<Long, String> m, int n, long offset) {
        Map<Long, Long> values = new HashMap<>();
        for (long k = 0; k < n; k++) {
            b.setCurrentKey(k);
            v.update(k + offset);
            l.update(List.of(k, offset));
            m.put(k, "v" + k);
            values.put(k, k + offset);
        }
        return values;
    }

    private static void assertHolds(KeyedStateBackend b, Map<Long, Long> expected) {
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            b.setCurrentKey(e.getKey());
            assertThat(v.value()).as("value of %s", e.getKey()).isEqualTo(e.getValue());
            assertThat(l.get()).as("list of %s", e.getKey()).containsExactly(e.getKey(), e.getValue() - e.getKey());
            assertThat(m.keys()).as("map of %s", e.getKey()).containsExactly(e.getKey());
            assertThat(m.get(e.getKey())).isEqualTo("v" + e.getKey());
        }
        assertThat(b.keysOf("v")).hasSize(expected.size());
    }

    @Test
    void restoresTheHeapsSnapshotsAndTheHeapRestoresItsOwn() {
        HeapKeyedStateBackend heap = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
        ValueState<Long> hv = heap.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> hl = heap.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> hm = heap.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        Map<Long, Long> expected = fill(heap, hv, hl, hm, 100, 7);

        KeyedStateBackend mine = backend();
        mine.restore(List.of(new DataInputBuffer(snapshotBytes(heap))));
        assertHolds(mine, expected);

        HeapKeyedStateBackend back = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
        back.restore(List.of(new DataInputBuffer(snapshotBytes(mine))));
        assertHolds(back, expected);
        assertThat(snapshotBytes(back)).as("the same state, the same canonical bytes").isEqualTo(snapshotBytes(heap));
    }

    @Test
    void restoresOnlyItsKeyGroupsFromSnapshotsOfOtherRanges() {
        // Written by two subtasks, restored by three (a rescale 2 -> 3) and back into one.
        Map<Long, Long> expected = new HashMap<>();
        List<byte[]> written = new ArrayList<>();
        for (int subtask = 0; subtask < 2; subtask++) {
            KeyGroupRange range = KeyGroups.rangeForSubtask(subtask, MAX_PARALLELISM, 2);
            KeyedStateBackend b = backend(range);
            ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
            ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
            MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
            for (long k = 0; k < 500; k++) {
                if (range.contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM))) {
                    b.setCurrentKey(k);
                    v.update(k * 3);
                    l.update(List.of(k, k * 2));
                    m.put(k, "v" + k);
                    expected.put(k, k * 3);
                }
            }
            written.add(snapshotBytes(b));
        }
        List<byte[]> rescaled = new ArrayList<>();
        for (int subtask = 0; subtask < 3; subtask++) {
            KeyGroupRange range = KeyGroups.rangeForSubtask(subtask, MAX_PARALLELISM, 3);
            KeyedStateBackend b = backend(range);
            b.restore(written.stream().map(DataInputBuffer::new).toList());
            Map<Long, Long> mine = new HashMap<>();
            expected.forEach((k, val) -> {
                if (range.contains(KeyGroups.keyGroupFor(k, MAX_PARALLELISM))) {
                    mine.put(k, val);
                }
            });
            assertHoldsRescaled(b, mine);
            rescaled.add(snapshotBytes(b));
        }
        KeyedStateBackend all = backend();
        all.restore(rescaled.stream().map(DataInputBuffer::new).toList());
        assertHoldsRescaled(all, expected);
    }

    private static void assertHoldsRescaled(KeyedStateBackend b, Map<Long, Long> expected) {
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        ListState<Long> l = b.getListState(new ListStateDescriptor<>("l", Serializers.LONG));
        MapState<Long, String> m = b.getMapState(new MapStateDescriptor<>("m", Serializers.LONG, Serializers.STRING));
        assertThat(b.keysOf("v")).containsExactlyInAnyOrderElementsOf(expected.keySet());
        for (Map.Entry<Long, Long> e : expected.entrySet()) {
            b.setCurrentKey(e.getKey());
            assertThat(v.value()).isEqualTo(e.getValue());
            assertThat(l.get()).containsExactly(e.getKey(), e.getKey() * 2);
            assertThat(m.get(e.getKey())).isEqualTo("v" + e.getKey());
        }
    }

    @Test
    void keysOfEveryKindRoundTrip() {
        KeyedStateBackend b = backend();
        ValueState<String> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.STRING));
        List<Object> keys = List.of("text", 42L, 7, java.util.UUID.fromString("123e4567-e89b-12d3-a456-426614174000"),
                Tuple2.of("a", 1L), List.of(1L, 2L), Thread.State.RUNNABLE);
        for (Object k : keys) {
            b.setCurrentKey(k);
            v.update(String.valueOf(k));
        }
        KeyedStateBackend restored = backend();
        restored.restore(List.of(new DataInputBuffer(snapshotBytes(b))));
        ValueState<String> r = restored.getValueState(new ValueStateDescriptor<>("v", Serializers.STRING));
        for (Object k : keys) {
            restored.setCurrentKey(k);
            assertThat(r.value()).isEqualTo(String.valueOf(k));
        }
        assertThat(restored.keysOf("v")).containsExactlyInAnyOrderElementsOf(keys);
    }

    @Test
    void aStateWhoseTypeChangedIsRefusedByName() {
        KeyedStateBackend b = backend();
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        b.setCurrentKey("a");
        v.update(1L);
        KeyedStateBackend restored = backend();
        restored.restore(List.of(new DataInputBuffer(snapshotBytes(b))));
        assertThatThrownBy(() -> restored.getValueState(new ValueStateDescriptor<>("count", Serializers.STRING)))
                .isInstanceOf(StateTypeChangedException.class)
                .hasMessageContaining("State 'count'")
                .hasMessageContaining("sluice.long")
                .hasMessageContaining("sluice.string");
    }

    @Test
    void aStateWrittenWithTheDynamicSerializerIsRewrittenWithADeclaredOne() {
        KeyedStateBackend b = backend();
        ValueState<Object> v = b.getValueState(new ValueStateDescriptor<>("count"));
        MapState<Object, Object> m = b.getMapState(new MapStateDescriptor<>("m"));
        for (long k = 0; k < 20; k++) {
            b.setCurrentKey(k);
            v.update(k);
            m.put("x" + k, k);
        }
        KeyedStateBackend restored = backend();
        restored.restore(List.of(new DataInputBuffer(snapshotBytes(b))));
        ValueState<Long> typed = restored.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        MapState<String, Long> typedMap = restored.getMapState(new MapStateDescriptor<>("m", Serializers.STRING,
                Serializers.LONG));
        for (long k = 0; k < 20; k++) {
            restored.setCurrentKey(k);
            assertThat(typed.value()).isEqualTo(k);
            assertThat(typedMap.get("x" + k)).isEqualTo(k);
        }
        HeapKeyedStateBackend back = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM);
        back.restore(List.of(new DataInputBuffer(snapshotBytes(restored))));
        ValueState<Long> again = back.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        back.setCurrentKey(3L);
        assertThat(again.value()).isEqualTo(3L);
    }

    @Test
    void aSnapshotOfAnotherMaxParallelismIsRefused() {
        HeapKeyedStateBackend other = new HeapKeyedStateBackend(KeyGroupRange.of(0, 31), 32);
        ValueState<Long> v = other.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        other.setCurrentKey(1L);
        v.update(1L);
        KeyedStateBackend b = backend();
        assertThatThrownBy(() -> b.restore(List.of(new DataInputBuffer(snapshotBytes(other)))))
                .isInstanceOf(MaxParallelismMismatchException.class)
                .hasMessageContaining("max parallelism 32")
                .hasMessageContaining("max parallelism " + MAX_PARALLELISM);
    }

    @Test
    void aCorruptSnapshotIsReportedAsUnreadable() {
        KeyedStateBackend b = backend();
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        for (long k = 0; k < 10; k++) {
            b.setCurrentKey(k);
            v.update(k);
        }
        byte[] bytes = snapshotBytes(b);
        byte[] truncated = java.util.Arrays.copyOf(bytes, bytes.length - 7);
        KeyedStateBackend restored = backend();
        assertThatThrownBy(() -> restored.restore(List.of(new DataInputBuffer(truncated))))
                .isInstanceOf(UnreadableSnapshotException.class);
    }

    // ------------------------------------------------------------------ time-to-live

    private static StateTtlConfig ttl(long millis) {
        return StateTtlConfig.newBuilder(Duration.ofMillis(millis)).build();
    }

    private void advance(long millis) {
        clock.advance(Duration.ofMillis(millis));
    }

    @Test
    void expiredValuesAreInvisibleAndAWriteStartsTheirTimeAgain() {
        KeyedStateBackend b = backend();
        ValueStateDescriptor<Long> d = new ValueStateDescriptor<>("v", Serializers.LONG);
        d.enableTimeToLive(ttl(100));
        ValueState<Long> v = b.getValueState(d);
        b.setCurrentKey("a");
        v.update(1L);
        b.setCurrentKey("b");
        v.update(2L);
        advance(60);
        v.update(3L); // b's time starts again
        advance(39);
        b.setCurrentKey("a");
        assertThat(v.value()).as("99 ms old").isEqualTo(1L);
        advance(1);
        assertThat(v.value()).as("100 ms old: expired").isNull();
        b.setCurrentKey("b");
        assertThat(v.value()).as("40 ms since its last write").isEqualTo(3L);
        advance(60);
        assertThat(v.value()).isNull();
        assertThat(b.numberOfKeys()).as("reads removed what they found expired").isZero();
    }

    @Test
    void withUpdateOnReadAReadStartsTheTimeAgainAndExpiredValuesMayStayVisibleUntilCleanedUp() {
        KeyedStateBackend b = backend();
        ValueStateDescriptor<Long> refreshed = new ValueStateDescriptor<>("refreshed", Serializers.LONG);
        refreshed.enableTimeToLive(StateTtlConfig.newBuilder(Duration.ofMillis(100))
                .updateType(StateTtlConfig.UpdateType.ON_READ_AND_WRITE).build());
        ValueStateDescriptor<Long> lenient = new ValueStateDescriptor<>("lenient", Serializers.LONG);
        lenient.enableTimeToLive(StateTtlConfig.newBuilder(Duration.ofMillis(100))
                .visibility(StateTtlConfig.Visibility.RETURN_EXPIRED_IF_NOT_CLEANED_UP).cleanupEntriesPerStep(0).build());
        ValueState<Long> r = b.getValueState(refreshed);
        ValueState<Long> l = b.getValueState(lenient);
        b.setCurrentKey("k");
        r.update(1L);
        l.update(2L);
        for (int i = 0; i < 5; i++) {
            advance(90);
            assertThat(r.value()).as("read every 90 ms, never expires").isEqualTo(1L);
        }
        assertThat(l.value()).as("expired long ago, not cleaned up, visible by request").isEqualTo(2L);
    }

    @Test
    void listElementsAndMapEntriesExpireOneByOne() {
        KeyedStateBackend b = backend();
        ListStateDescriptor<String> ld = new ListStateDescriptor<>("l", Serializers.STRING);
        ld.enableTimeToLive(ttl(100));
        MapStateDescriptor<String, Long> md = new MapStateDescriptor<>("m", Serializers.STRING, Serializers.LONG);
        md.enableTimeToLive(ttl(100));
        ListState<String> l = b.getListState(ld);
        MapState<String, Long> m = b.getMapState(md);
        b.setCurrentKey("k");
        l.add("old");
        m.put("old", 1L);
        advance(50);
        l.add("new");
        m.put("new", 2L);
        assertThat(l.get()).containsExactly("old", "new");
        assertThat(m.keys()).containsExactlyInAnyOrder("old", "new");
        advance(60);
        assertThat(l.get()).containsExactly("new");
        assertThat(m.get("old")).isNull();
        assertThat(m.contains("new")).isTrue();
        assertThat(m.entries()).extracting(Map.Entry::getKey).containsExactly("new");
        assertThat(m.isEmpty()).isFalse();
        advance(50);
        assertThat(l.get()).isEmpty();
        assertThat(m.isEmpty()).isTrue();
        assertThat(m.values()).isEmpty();
        assertThat(b.numberOfKeys()).isZero();
    }

    @Test
    void expiredValuesAreRemovedInTheBackgroundWithoutBeingRead() {
        KeyedStateBackend b = backend();
        ValueStateDescriptor<Long> vd = new ValueStateDescriptor<>("v", Serializers.LONG);
        vd.enableTimeToLive(ttl(100));
        ListStateDescriptor<Long> ld = new ListStateDescriptor<>("l", Serializers.LONG);
        ld.enableTimeToLive(ttl(100));
        MapStateDescriptor<Long, Long> md = new MapStateDescriptor<>("m", Serializers.LONG, Serializers.LONG);
        md.enableTimeToLive(ttl(100));
        ValueState<Long> v = b.getValueState(vd);
        ListState<Long> l = b.getListState(ld);
        MapState<Long, Long> m = b.getMapState(md);
        ValueState<Long> plain = b.getValueState(new ValueStateDescriptor<>("plain", Serializers.LONG));
        for (long k = 0; k < 500; k++) {
            b.setCurrentKey(k);
            v.update(k);
            l.add(k);
            m.put(k, k);
            plain.update(k);
        }
        assertThat(b.numberOfKeys()).isEqualTo(4 * 500);
        advance(100);
        // Records of other keys go on; each 64th takes a clean-up step of 16 entries per state.
        long records = 0;
        while (b.numberOfKeys() > 500 && records < 100_000) {
            b.setCurrentKey(-1L - records % 10);
            records++;
        }
        System.out.printf("%d records cleaned 1500 expired values%n", records);
        assertThat(b.numberOfKeys()).as("only the state without a time-to-live is left").isEqualTo(500);
        assertThat(records).as("about 500 / 16 steps of 64 records").isLessThan(4_000);
        b.setCurrentKey(7L);
        assertThat(plain.value()).isEqualTo(7L);
    }

    @Test
    void timestampsTravelWithSnapshotsIntoTheOtherBackend() {
        KeyedStateBackend b = backend();
        ValueStateDescriptor<Long> d = new ValueStateDescriptor<>("v", Serializers.LONG);
        d.enableTimeToLive(ttl(100));
        ValueState<Long> v = b.getValueState(d);
        b.setCurrentKey("a");
        v.update(1L);
        advance(60);
        b.setCurrentKey("b");
        v.update(2L);
        byte[] bytes = snapshotBytes(b);

        HeapKeyedStateBackend heap = new HeapKeyedStateBackend(KeyGroupRange.of(0, MAX_PARALLELISM - 1), MAX_PARALLELISM,
                Serializers.dynamic(), clock);
        heap.restore(List.of(new DataInputBuffer(bytes)));
        KeyedStateBackend mine = backend();
        mine.restore(List.of(new DataInputBuffer(snapshotBytes(heap))));
        ValueState<Long> r = mine.getValueState(d);
        advance(39);
        mine.setCurrentKey("a");
        assertThat(r.value()).isEqualTo(1L);
        advance(1);
        assertThat(r.value()).as("expired at the time it was written for, after two moves").isNull();
        mine.setCurrentKey("b");
        assertThat(r.value()).isEqualTo(2L);
    }

    @Test
    void addingOrRemovingATimeToLiveOnARestoredStateIsATypeChange() {
        KeyedStateBackend b = backend();
        ValueState<Long> v = b.getValueState(new ValueStateDescriptor<>("v", Serializers.LONG));
        b.setCurrentKey("a");
        v.update(1L);
        KeyedStateBackend restored = backend();
        restored.restore(List.of(new DataInputBuffer(snapshotBytes(b))));
        ValueStateDescriptor<Long> withTtl = new ValueStateDescriptor<>("v", Serializers.LONG);
        withTtl.enableTimeToLive(ttl(100));
        assertThatThrownBy(() -> restored.getValueState(withTtl)).isInstanceOf(StateTypeChangedException.class)
                .hasMessageContaining("sluice.ttl");
    }
}
