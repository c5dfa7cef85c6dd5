package io.sluice.api.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.JavaSerialization;
import io.sluice.api.tuple.Tuple2;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CollectingSinkTest {

    private final CollectingSink<String> first = CollectingSink.create();
    private final CollectingSink<String> second = CollectingSink.create();

    @AfterEach
    void release() {
        first.release();
        second.release();
    }

    @Test
    void twoSinksKeepSeparateResults() {
        first.invoke("a");
        second.invoke("b");
        first.invoke("c");

        assertThat(first.results()).containsExactly("a", "c");
        assertThat(second.results()).containsExactly("b");
        assertThat(first.count()).isEqualTo(2);
        assertThat(first.id()).isNotEqualTo(second.id());
    }

    @Test
    void serializedCopiesAppendToTheSameResults() throws Exception {
        CollectingSink<String> copy = JavaSerialization.roundTrip(first);

        copy.invoke("from copy");
        first.invoke("from original");

        assertThat(first.results()).containsExactly("from copy", "from original");
        assertThat(second.results()).isEmpty();
    }

    @Test
    void resultsIsASnapshotAndClearEmptiesTheList() {
        first.invoke("a");
        List<String> snapshot = first.results();
        first.invoke("b");

        assertThat(snapshot).containsExactly("a");
        first.clear();
        assertThat(first.results()).isEmpty();
        assertThat(first.count()).isZero();
    }

    @Test
    void releasedSinkSaysWhatHappened() {
        CollectingSink<String> sink = CollectingSink.create();
        sink.release();

        assertThatThrownBy(sink::results)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(sink.id())
                .hasMessageContaining("released");
        assertThatThrownBy(() -> sink.invoke("x")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void lastValuePerKeyKeepsTheLatestUpdateInFirstSeenKeyOrder() {
        List<Tuple2<String, Long>> updates = List.of(
                Tuple2.of("b", 1L), Tuple2.of("a", 1L), Tuple2.of("b", 2L), Tuple2.of("a", 5L), Tuple2.of("c", 7L));

        Map<String, Long> last = CollectingSink.lastValuePerKey(updates, Tuple2::f0, Tuple2::f1);

        assertThat(last).containsExactly(Map.entry("b", 2L), Map.entry("a", 5L), Map.entry("c", 7L));
    }
}
