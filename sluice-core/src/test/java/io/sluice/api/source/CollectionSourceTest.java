package io.sluice.api.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.JavaSerialization;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CollectionSourceTest {

    private static final List<String> WORDS = IntStream.range(0, 50).mapToObj(i -> "w" + i).toList();

    @Test
    void threeSubtasksCoverTheListExactlyOnce() throws Exception {
        List<String> all = Readers.drainAll(new CollectionSource<>(WORDS), 3, 4);

        assertThat(all).containsExactlyInAnyOrderElementsOf(WORDS);
    }

    @Test
    void subtaskTakesEveryParallelismthIndexStartingAtItsOwn() throws Exception {
        SourceReader<String> reader = CollectionSource.of("a", "b", "c", "d", "e").createReader(1, 2);

        assertThat(Readers.drain(reader, 10)).containsExactly("b", "d");
    }

    @Test
    void copiesTheListAtConstruction() throws Exception {
        List<String> list = new ArrayList<>(List.of("x", "y"));
        CollectionSource<String> source = new CollectionSource<>(list);
        list.add("z");

        assertThat(Readers.drainAll(source, 1, 10)).containsExactly("x", "y");
    }

    @Test
    void allowsNullElements() throws Exception {
        CollectionSource<String> source = new CollectionSource<>(Arrays.asList("a", null, "c"));

        assertThat(Readers.drainAll(JavaSerialization.roundTrip(source), 1, 10)).containsExactly("a", null, "c");
    }

    @Test
    void restoreInANewReaderContinuesWithNoGapAndNoDuplicate() throws Exception {
        CollectionSource<String> source = new CollectionSource<>(WORDS);
        SourceReader<String> first = source.createReader(2, 3);
        List<String> before = Readers.take(first, 5);
        byte[] position = first.snapshotPosition();
        first.emit(v -> { }, 3);

        SourceReader<String> restored = JavaSerialization.roundTrip(source).createReader(2, 3);
        restored.restorePosition(position);

        assertThat(position).hasSize(4);
        assertThat(restored.snapshotPosition()).isEqualTo(position);
        List<String> joined = new ArrayList<>(before);
        joined.addAll(Readers.drain(restored, 2));
        assertThat(joined).isEqualTo(Readers.drain(source.createReader(2, 3), 100));
    }

    @Test
    void restoringTheEndPositionEndsImmediately() throws Exception {
        SourceReader<String> first = CollectionSource.of("a", "b", "c").createReader(0, 2);
        Readers.drain(first, 10);
        SourceReader<String> restored = CollectionSource.of("a", "b", "c").createReader(0, 2);

        restored.restorePosition(first.snapshotPosition());

        assertThat(restored.emit(v -> { }, 10)).isEqualTo(SourceReader.END_OF_INPUT);
    }

    @Test
    void rejectsANonSerializableElementNamingItsClass() {
        List<Object> elements = List.of("fine", new NotSerializable(), new Object());

        assertThatThrownBy(() -> new CollectionSource<>(elements))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("element 1")
                .hasMessageContaining(NotSerializable.class.getName())
                .hasMessageContaining("java.io.Serializable");
    }

    @Test
    void restoreRejectsPositionsOfTheWrongLengthOrAnotherSubtask() throws Exception {
        SourceReader<String> reader = new CollectionSource<>(WORDS).createReader(1, 3);

        assertThatThrownBy(() -> reader.restorePosition(new byte[8]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("4 bytes")
                .hasMessageContaining("8 bytes");
        SourceReader<String> other = new CollectionSource<>(WORDS).createReader(0, 3);
        Readers.take(other, 2);
        assertThatThrownBy(() -> reader.restorePosition(other.snapshotPosition()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("restored position 6")
                .hasMessageContaining("different list or parallelism");
    }

    private static final class NotSerializable {}
}
