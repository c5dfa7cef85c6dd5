package io.sluice.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.Serializers;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeapKeyedStateBackendTest {
    private final HeapKeyedStateBackend backend = new HeapKeyedStateBackend(KeyGroupRange.of(0, 127), 128);

    @Test
    void valueStateIsPerKeyAndNullWhenAbsent() {
        ValueState<Long> count = backend.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        backend.setCurrentKey("a");
        assertThat(count.value()).isNull();
        count.update(1L);
        backend.setCurrentKey("b");
        assertThat(count.value()).isNull();
        count.update(10L);
        backend.setCurrentKey("a");
        assertThat(count.value()).isEqualTo(1L);
        count.update(count.value() + 1);
        assertThat(count.value()).isEqualTo(2L);
        backend.setCurrentKey("b");
        assertThat(count.value()).isEqualTo(10L);
        assertThat(backend.numberOfKeys()).isEqualTo(2);

        count.update(null);
        assertThat(count.value()).isNull();
        assertThat(backend.numberOfKeys()).isEqualTo(1);
        backend.setCurrentKey("a");
        count.clear();
        assertThat(count.value()).isNull();
        assertThat(backend.numberOfKeys()).isZero();
    }

    @Test
    void listStateIsPerKeyNeverNullAndDropsEmptyLists() {
        ListState<String> list = backend.getListState(new ListStateDescriptor<>("events", Serializers.STRING));
        backend.setCurrentKey(1L);
        assertThat(list.get()).isNotNull().isEmpty();
        list.add("x");
        list.add("y");
        backend.setCurrentKey(2L);
        assertThat(list.get()).isEmpty();
        list.update(List.of("p"));
        backend.setCurrentKey(1L);
        assertThat(list.get()).containsExactly("x", "y");
        assertThat(backend.numberOfKeys()).isEqualTo(2);

        list.update(List.of());
        assertThat(list.get()).isEmpty();
        assertThat(backend.numberOfKeys()).isEqualTo(1);
        backend.setCurrentKey(2L);
        assertThat(list.get()).containsExactly("p");
        list.clear();
        assertThat(backend.numberOfKeys()).isZero();
    }

    @Test
    void listStateCopiesTheListPassedToUpdateAndRejectsNulls() {
        ListState<String> list = backend.getListState(new ListStateDescriptor<>("events"));
        backend.setCurrentKey("k");
        List<String> mine = new java.util.ArrayList<>(List.of("a"));
        list.update(mine);
        mine.add("b");
        assertThat(list.get()).containsExactly("a");
        assertThatThrownBy(() -> list.add(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("'events'");
        assertThatThrownBy(() -> ((List<String>) list.get()).add("z")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void mapStateBehavesLikeAMapPerKeyAndDropsEmptyMaps() {
        MapState<String, Integer> map = backend.getMapState(new MapStateDescriptor<>("m", Serializers.STRING, Serializers.INT));
        backend.setCurrentKey("a");
        assertThat(map.isEmpty()).isTrue();
        assertThat(map.get("x")).isNull();
        assertThat(map.entries()).isEmpty();
        map.put("x", 1);
        map.put("y", 2);
        backend.setCurrentKey("b");
        assertThat(map.contains("x")).isFalse();
        map.put("x", 100);
        backend.setCurrentKey("a");
        assertThat(map.get("x")).isEqualTo(1);
        assertThat(map.contains("y")).isTrue();
        assertThat(map.keys()).containsExactlyInAnyOrder("x", "y");
        assertThat(map.values()).containsExactlyInAnyOrder(1, 2);
        assertThat(map.entries()).containsExactlyInAnyOrder(Map.entry("x", 1), Map.entry("y", 2));
        assertThat(backend.numberOfKeys()).isEqualTo(2);

        map.remove("x");
        map.remove("nope");
        assertThat(map.isEmpty()).isFalse();
        map.remove("y");
        assertThat(map.isEmpty()).isTrue();
        assertThat(backend.numberOfKeys()).isEqualTo(1);
        backend.setCurrentKey("b");
        assertThat(map.get("x")).isEqualTo(100);
        map.clear();
        assertThat(backend.numberOfKeys()).isZero();
        assertThatThrownBy(() -> map.put("x", null)).isInstanceOf(NullPointerException.class).hasMessageContaining("remove");
    }

    @Test
    void numberOfKeysSumsOverStates() {
        ValueState<Long> v = backend.getValueState(new ValueStateDescriptor<>("v"));
        ListState<Long> l = backend.getListState(new ListStateDescriptor<>("l"));
        backend.setCurrentKey("k");
        v.update(1L);
        l.add(1L);
        assertThat(backend.numberOfKeys()).isEqualTo(2);
    }

    @Test
    void sameNameReturnsTheSameStateObject() {
        ValueState<Long> first = backend.getValueState(new ValueStateDescriptor<>("count"));
        ValueState<Long> second = backend.getValueState(new ValueStateDescriptor<>("count", Serializers.LONG));
        assertThat(second).isSameAs(first);
        ListState<Long> list = backend.getListState(new ListStateDescriptor<>("l"));
        assertThat(backend.getListState(new ListStateDescriptor<Long>("l"))).isSameAs(list);
        MapState<Long, Long> map = backend.getMapState(new MapStateDescriptor<>("m"));
        assertThat(backend.getMapState(new MapStateDescriptor<Long, Long>("m"))).isSameAs(map);
    }

    @Test
    void sameNameWithAnotherKindIsRejectedNamingTheState() {
        backend.getValueState(new ValueStateDescriptor<Long>("count"));
        assertThatThrownBy(() -> backend.getListState(new ListStateDescriptor<Long>("count")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'count'")
                .hasMessageContaining("VALUE")
                .hasMessageContaining("LIST");
        assertThatThrownBy(() -> backend.getMapState(new MapStateDescriptor<Long, Long>("count")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'count'");
    }

    @Test
    void keyOfAnotherSubtaskIsRejected() {
        HeapKeyedStateBackend narrow = new HeapKeyedStateBackend(KeyGroups.rangeForSubtask(0, 128, 4), 128);
        long foreign = 0;
        while (narrow.keyGroupRange().contains(KeyGroups.keyGroupFor(foreign, 128))) {
            foreign++;
        }
        long own = foreign;
        final long foreignKey = foreign;
        while (!narrow.keyGroupRange().contains(KeyGroups.keyGroupFor(own, 128))) {
            own++;
        }
        narrow.setCurrentKey(own);
        assertThatThrownBy(() -> narrow.setCurrentKey(foreignKey))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("wrong subtask");
        assertThat(narrow.currentKey()).isEqualTo(own);
    }

    @Test
    void stateAccessWithoutKeyFails() {
        ValueState<Long> v = backend.getValueState(new ValueStateDescriptor<>("v"));
        assertThatThrownBy(() -> v.update(1L)).isInstanceOf(IllegalStateException.class).hasMessageContaining("no current key");
        assertThatThrownBy(() -> backend.setCurrentKey(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void rangeOutsideMaxParallelismIsRejected() {
        assertThatThrownBy(() -> new HeapKeyedStateBackend(KeyGroupRange.of(0, 128), 128))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[0, 128]");
    }
}
