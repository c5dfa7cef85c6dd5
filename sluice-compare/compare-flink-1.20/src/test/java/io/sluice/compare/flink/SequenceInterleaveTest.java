package io.sluice.compare.flink;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.compare.LargeStateWorkload;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Flink large-state job's readers together emit 0, 1, 2, ... as Sluice's source does, so the load phase
 * writes every key once on both systems.
 */
class SequenceInterleaveTest {
    @ParameterizedTest(name = "parallelism {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void theReadersNthValuesAreTheSequenceSluiceEmits(int parallelism) {
        SequenceInterleave interleave = SequenceInterleave.of(parallelism);
        int perReader = 10_000;
        BitSet seen = new BitSet();
        for (int j = 0; j < parallelism; j++) {
            for (long n = 0; n < perReader; n++) {
                long value = interleave.apply(interleave.rangeStart(j) + n);
                assertThat(value).isEqualTo(j + n * parallelism);
                seen.set((int) value);
            }
        }
        assertThat(seen.cardinality()).isEqualTo(parallelism * perReader);
        assertThat(seen.nextClearBit(0)).isEqualTo(parallelism * perReader);
    }

    /** Without the mapping, the second reader's first value is already in the steady phase (the bug it fixes). */
    @Test
    void withoutItTheSecondReaderStartsAboveEveryKey() {
        SequenceInterleave interleave = SequenceInterleave.of(2);
        long keys = 30_769_231;
        assertThat(LargeStateWorkload.loading(interleave.rangeStart(1), keys)).isFalse();
        assertThat(LargeStateWorkload.loading(interleave.apply(interleave.rangeStart(1)), keys)).isTrue();
    }
}
