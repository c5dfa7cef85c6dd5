package io.sluice.api.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.JavaSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class SequenceSourceTest {

    @Test
    void threeSubtasksCoverTheRangeExactlyOnce() throws Exception {
        List<Long> all = Readers.drainAll(SequenceSource.bounded(-5, 1000), 3, 7);

        assertThat(all).hasSize(1006).doesNotHaveDuplicates();
        assertThat(all).containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(-5, 1000).boxed().toList());
    }

    @Test
    void subtaskEmitsFromPlusIndexInStridesOfParallelism() throws Exception {
        SourceReader<Long> reader = SequenceSource.bounded(10, 20).createReader(1, 3);

        assertThat(Readers.drain(reader, 100)).containsExactly(11L, 14L, 17L, 20L);
    }

    @Test
    void subtaskWithNothingInRangeEndsImmediately() throws Exception {
        SourceReader<Long> reader = SequenceSource.bounded(0, 1).createReader(2, 3);

        assertThat(reader.emit(v -> { throw new AssertionError("emitted " + v); }, 10))
                .isEqualTo(SourceReader.END_OF_INPUT);
    }

    @Test
    void rangeEndingAtLongMaxValueDoesNotOverflow() throws Exception {
        List<Long> all = Readers.drainAll(SequenceSource.bounded(Long.MAX_VALUE - 6, Long.MAX_VALUE), 2, 3);

        assertThat(all).containsExactlyInAnyOrderElementsOf(
                LongStream.rangeClosed(Long.MAX_VALUE - 6, Long.MAX_VALUE).boxed().toList());
    }

    @Test
    void emitRespectsMaxRecords() throws Exception {
        SourceReader<Long> reader = SequenceSource.bounded(0, 100).createReader(0, 1);
        List<Long> out = new ArrayList<>();

        assertThat(reader.emit(out::add, 4)).isEqualTo(4);
        assertThat(out).containsExactly(0L, 1L, 2L, 3L);
    }

    @Test
    void restoreInANewReaderContinuesWithNoGapAndNoDuplicate() throws Exception {
        SequenceSource source = SequenceSource.bounded(0, 99);
        SourceReader<Long> first = source.createReader(1, 3);
        List<Long> before = Readers.take(first, 10);
        byte[] position = first.snapshotPosition();
        first.emit(v -> { }, 5); // emitted after the checkpoint: must be replayed

        SourceReader<Long> restored = JavaSerialization.roundTrip(source).createReader(1, 3);
        restored.restorePosition(position);
        assertThat(restored.snapshotPosition()).isEqualTo(position);
        List<Long> after = Readers.drain(restored, 4);

        assertThat(position).hasSize(8);
        List<Long> joined = new ArrayList<>(before);
        joined.addAll(after);
        assertThat(joined).isEqualTo(Readers.drain(source.createReader(1, 3), 1000));
    }

    @Test
    void restoringTheEndPositionEndsImmediately() throws Exception {
        SourceReader<Long> first = SequenceSource.bounded(1, 9).createReader(0, 2);
        Readers.drain(first, 100);
        SourceReader<Long> restored = SequenceSource.bounded(1, 9).createReader(0, 2);

        restored.restorePosition(first.snapshotPosition());

        assertThat(restored.emit(v -> { }, 10)).isEqualTo(SourceReader.END_OF_INPUT);
    }

    @Test
    void restoreRejectsPositionsOfTheWrongLengthOrPastTheEnd() throws Exception {
        SourceReader<Long> reader = SequenceSource.bounded(0, 9).createReader(0, 2);

        assertThatThrownBy(() -> reader.restorePosition(new byte[4]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8 bytes")
                .hasMessageContaining("4 bytes");
        SourceReader<Long> full = SequenceSource.bounded(0, 99).createReader(0, 1);
        Readers.take(full, 6);
        assertThatThrownBy(() -> reader.restorePosition(full.snapshotPosition()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("restored position 6");
    }

    @Test
    void unboundedKeepsGoing() throws Exception {
        SequenceSource source = SequenceSource.unbounded(5);
        SourceReader<Long> reader = source.createReader(0, 2);

        List<Long> values = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            assertThat(reader.emit(values::add, 1000)).isEqualTo(1000);
        }

        assertThat(source.isBounded()).isFalse();
        assertThat(values).hasSize(100_000);
        assertThat(values.get(0)).isEqualTo(5L);
        assertThat(values.get(99_999)).isEqualTo(5L + 2 * 99_999L);
    }

    @Test
    void unboundedStopsAtLongMaxValueInsteadOfWrapping() throws Exception {
        assertThat(Readers.drain(SequenceSource.unbounded(Long.MAX_VALUE - 2).createReader(0, 1), 10))
                .containsExactly(Long.MAX_VALUE - 2, Long.MAX_VALUE - 1, Long.MAX_VALUE);
    }

    @Test
    void rateLimitedReaderEventuallyEmitsTheSameValuesInOrder() throws Exception {
        SourceReader<Long> reader = SequenceSource.bounded(0, 19).withRate(2000).createReader(1, 2);
        List<Long> out = new ArrayList<>();

        // Driven as a task drives it: when nothing is due, wait as long as the reader says (1 ms per record here),
        // so 10_000 calls bound the test without asserting timing.
        for (int calls = 0; calls < 10_000 && out.size() < 10; calls++) {
            int n = reader.emit(out::add, 3);
            assertThat(n).isBetween(0, 3);
            if (n == 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(reader.nanosUntilAvailable());
            }
        }

        assertThat(out).containsExactly(1L, 3L, 5L, 7L, 9L, 11L, 13L, 15L, 17L, 19L);
    }

    @Test
    void aFastPacedReaderAsksToSleepAtLeastATickNotUntilItsNextRecord() throws Exception {
        // 1,100 records/s: after the first record (due at once) the next is due about 909 us later. The reader
        // asks for at least 1 ms (it asked for the ~909 us before, and at 100,000 records/s for 10 us: a
        // wake-up per record); what falls due meanwhile comes out together. A sample where this thread was
        // descheduled past the due time (the reader then rightly says 0) is taken again.
        int samples = 0;
        for (int attempt = 0; attempt < 100 && samples < 5; attempt++) {
            SourceReader<Long> reader = SequenceSource.unbounded(0).withRate(1_100).createReader(0, 1);
            assertThat(reader.emit(v -> { }, 10)).isEqualTo(1); // starts the pacing: the first record is due at once
            long asked = reader.nanosUntilAvailable();
            if (asked > 0) {
                samples++;
                assertThat(asked).isGreaterThanOrEqualTo(SequenceSource.MIN_PACING_TICK_NANOS);
            }
        }
        assertThat(samples).as("samples with a record not yet due").isEqualTo(5);
    }

    @Test
    void aRateLimitedReaderWithNothingDueReturnsAtOnceAndSaysWhenTheNextRecordIs() throws Exception {
        SourceReader<Long> reader = SequenceSource.unbounded(0).withRate(1).createReader(0, 1);

        // One record a second: the first is due at once (also the first after a restore: a restarted task
        // does not wait a record's time for its first), then none is due yet. The reader does not park (the
        // task sleeps instead, and wakes early for a checkpoint or a cancel); it says how long until the next.
        List<Long> first = new ArrayList<>();
        assertThat(reader.emit(first::add, 10)).isEqualTo(1);
        assertThat(first).containsExactly(0L);
        assertThat(reader.emit(v -> { throw new AssertionError("emitted " + v); }, 10)).isZero();
        assertThat(reader.nanosUntilAvailable()).isPositive().isLessThanOrEqualTo(1_000_000_000L);

        SourceReader<Long> unlimited = SequenceSource.unbounded(0).createReader(0, 1);
        assertThat(unlimited.nanosUntilAvailable()).isZero();
        SourceReader<Long> ended = SequenceSource.bounded(0, 0).withRate(1).createReader(0, 1);
        ended.restorePosition(ReaderPositions.encodeLong(1));
        assertThat(ended.nanosUntilAvailable()).isZero();
        assertThat(ended.emit(v -> { }, 1)).isEqualTo(SourceReader.END_OF_INPUT);
    }

    @Test
    void rejectsInvalidArgumentsWithTheValuesInTheMessage() {
        assertThatThrownBy(() -> SequenceSource.bounded(10, 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bounded(10, 5)")
                .hasMessageContaining("from must be <= toInclusive");
        assertThatThrownBy(() -> SequenceSource.unbounded(0).withRate(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("withRate(0.0)");
        assertThatThrownBy(() -> SequenceSource.unbounded(0).withRate(Double.NaN))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> SequenceSource.bounded(0, 5).createReader(3, 3))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("subtask index 3");
    }

    @Test
    void describesItself() {
        assertThat(SequenceSource.bounded(1, 2).withRate(10).toString())
                .isEqualTo("SequenceSource[1, 2] at 10.0 records/s");
        assertThat(SequenceSource.bounded(1, 2).isBounded()).isTrue();
    }

    @Test
    void declaresThePlainLongSerializer() {
        assertThat(SequenceSource.unbounded(0).serializer()).isSameAs(io.sluice.core.serialization.Serializers.LONG);
        assertThat(SequenceSource.bounded(0, 9).withRate(100).serializer())
                .isSameAs(io.sluice.core.serialization.Serializers.LONG);
        assertThat(new CollectionSource<>(List.of(1, 2)).serializer()).isNull();
    }
}
