package io.sluice.api.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sluice.api.JavaSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * A {@link SequenceSource} restored at another parallelism: the new readers split what the old ones had left,
 * so that what was emitted before each checkpoint plus what the last run emits is every value exactly once.
 */
class SequenceSourceRescaleTest {
    private static final Random SEEDS = new Random();

    @Test
    void declaresThatItRedistributesItsPositions() {
        assertThat(SequenceSource.bounded(0, 9).redistributesPositions()).isTrue();
        assertThat(CollectionSource.of(1, 2).redistributesPositions()).as("the default").isFalse();
    }

    @Test
    void twoReadersToThreeGetEveryValueLeftExactlyOnce() throws Exception {
        SequenceSource source = SequenceSource.bounded(0, 99);
        List<Long> before = new ArrayList<>();
        List<SubtaskPosition> positions = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            SourceReader<Long> r = source.createReader(i, 2);
            before.addAll(Readers.take(r, 10 + 5 * i));
            positions.add(new SubtaskPosition(i, 2, r.snapshotPosition()));
        }

        List<Long> after = new ArrayList<>();
        List<Integer> perReader = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            SourceReader<Long> r = source.createReader(k, 3);
            r.restoreRescaledPositions(positions);
            List<Long> share = Readers.drain(r, 7);
            perReader.add(share.size());
            after.addAll(share);
        }

        assertThat(before).hasSize(25);
        assertThat(perReader).as("every new reader has a share").allMatch(n -> n > 0);
        List<Long> all = new ArrayList<>(before);
        all.addAll(after);
        assertThat(all).doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(0, 99).boxed().toList());
    }

    @Test
    void aRescaledReadersPositionRestoresAtTheSameParallelismWhereItWas() throws Exception {
        SequenceSource source = SequenceSource.bounded(0, 999);
        List<SubtaskPosition> positions = List.of(new SubtaskPosition(0, 1, source.createReader(0, 1).snapshotPosition()));
        SourceReader<Long> rescaled = source.createReader(1, 4);
        rescaled.restoreRescaledPositions(positions);
        List<Long> first = Readers.take(rescaled, 13);
        byte[] position = rescaled.snapshotPosition();
        List<Long> next = Readers.take(rescaled, 20);

        SourceReader<Long> restored = JavaSerialization.roundTrip(source).createReader(1, 4);
        restored.restorePosition(position);

        assertThat(position.length).as("version 2, not the count of version 1").isNotEqualTo(8);
        assertThat(restored.snapshotPosition()).isEqualTo(position);
        assertThat(Readers.take(restored, 20)).as("the same values in the same order").isEqualTo(next);
        assertThat(first).doesNotContainAnyElementsOf(next);
    }

    @Test
    void finishedOldReadersContributeNothingAndAllFinishedMeansNothingLeft() throws Exception {
        SequenceSource source = SequenceSource.bounded(0, 9);
        SourceReader<Long> r0 = source.createReader(0, 2);
        List<Long> before = Readers.drain(r0, 100); // 0, 2, 4, 6, 8: finished
        SourceReader<Long> r1 = source.createReader(1, 2);
        before.addAll(Readers.take(r1, 2)); // 1, 3
        List<SubtaskPosition> positions = List.of(new SubtaskPosition(0, 2, null),
                new SubtaskPosition(1, 2, r1.snapshotPosition()));

        List<Long> after = new ArrayList<>();
        for (int k = 0; k < 3; k++) {
            SourceReader<Long> r = source.createReader(k, 3);
            r.restoreRescaledPositions(positions);
            after.addAll(Readers.drain(r, 10));
        }
        assertThat(after).containsExactlyInAnyOrder(5L, 7L, 9L);

        SourceReader<Long> none = source.createReader(0, 1);
        none.restoreRescaledPositions(List.of(new SubtaskPosition(0, 2, null), new SubtaskPosition(1, 2, null)));
        assertThat(none.emit(v -> { }, 10)).isEqualTo(SourceReader.END_OF_INPUT);
    }

    @Test
    void anUnboundedSequenceRescalesWithoutOverflowing() throws Exception {
        SequenceSource source = SequenceSource.unbounded(Long.MAX_VALUE - 100);
        List<Long> before = new ArrayList<>();
        List<SubtaskPosition> positions = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            SourceReader<Long> r = source.createReader(i, 3);
            before.addAll(Readers.take(r, 4));
            positions.add(new SubtaskPosition(i, 3, r.snapshotPosition()));
        }
        List<Long> after = new ArrayList<>();
        for (int k = 0; k < 5; k++) {
            SourceReader<Long> r = source.createReader(k, 5);
            r.restoreRescaledPositions(positions);
            after.addAll(Readers.drain(r, 9));
        }
        before.addAll(after);
        assertThat(before).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(
                LongStream.rangeClosed(Long.MAX_VALUE - 100, Long.MAX_VALUE).boxed().toList());
    }

    @Test
    void aCorruptVersionTwoPositionIsRefusedNamingTheReader() throws Exception {
        SourceReader<Long> reader = SequenceSource.bounded(0, 9).createReader(0, 2);
        byte[] outside = java.nio.ByteBuffer.allocate(21).put((byte) 2).putInt(1).putLong(50).putLong(2).array();

        assertThatThrownBy(() -> reader.restorePosition(outside)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("subtask 0 of 2").hasMessageContaining("outside [0, 9]");
        assertThatThrownBy(() -> reader.restorePosition(new byte[] {2, 0, 0, 0, 3}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 bytes");
    }

    /**
     * Random chains of parallelisms (1 to 7) with a checkpoint after a random number of records per reader (some
     * drained to the end and reported finished): what each run emitted up to its checkpoint plus what the last
     * run emits is the range exactly once. Prints its seed.
     */
    @RepeatedTest(20)
    void randomRescaleChainsEmitEveryValueExactlyOnce() throws Exception {
        long seed = SEEDS.nextLong();
        System.out.println("SequenceSourceRescaleTest seed " + seed);
        Random random = new Random(seed);
        long from = random.nextInt(1000) - 500;
        long to = from + random.nextInt(3000);
        SequenceSource source = SequenceSource.bounded(from, to);
        List<Long> committed = new ArrayList<>();
        List<SubtaskPosition> positions = null;
        int stages = 1 + random.nextInt(5);
        List<Integer> chain = new ArrayList<>();
        for (int stage = 0; stage <= stages; stage++) {
            int p = 1 + random.nextInt(7);
            chain.add(p);
            boolean last = stage == stages;
            List<SubtaskPosition> next = new ArrayList<>();
            for (int k = 0; k < p; k++) {
                SourceReader<Long> r = source.createReader(k, p);
                if (positions != null) {
                    r.restoreRescaledPositions(positions);
                }
                if (last) {
                    committed.addAll(Readers.drain(r, 1 + random.nextInt(20)));
                    continue;
                }
                boolean finished = false;
                int budget = random.nextInt(400);
                for (int emitted = 0; emitted < budget; ) {
                    List<Long> batch = new ArrayList<>();
                    int n = r.emit(batch::add, 1 + random.nextInt(20));
                    if (n == SourceReader.END_OF_INPUT) {
                        finished = true;
                        break;
                    }
                    committed.addAll(batch);
                    emitted += n;
                }
                next.add(new SubtaskPosition(k, p, finished ? null : r.snapshotPosition()));
                r.emit(v -> { }, 5); // after the checkpoint: lost with the run, emitted again by the next one
            }
            positions = next;
        }
        assertThat(committed).as("seed " + seed + ", range [" + from + ", " + to + "], parallelisms " + chain)
                .doesNotHaveDuplicates()
                .containsExactlyInAnyOrderElementsOf(LongStream.rangeClosed(from, to).boxed().toList());
    }
}
