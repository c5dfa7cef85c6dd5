package io.sluice.compare.flink;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.api.connector.source.lib.NumberSequenceSource;

/**
 * Turns what {@code fromSequence(0, Long.MAX_VALUE)} emits at parallelism {@code p} into the sequence
 * Sluice's {@code LargeStateSource} emits: Flink splits the range into {@code p} consecutive ranges (its
 * reader {@code j} emits {@code start_j, start_j + 1, ...}), and this maps the {@code n}-th value of range
 * {@code j} to {@code j + n * p}, so that together the readers emit 0, 1, 2, ... as Sluice's do. Without it
 * every reader but the first started far above the key count, in the paced steady phase, so the load phase
 * wrote only about three quarters of the keys (a 4 GB run held 22.7 M of 30.8 M keys: its savepoints
 * measured 3.45 GB where Sluice's measured 4.37 GB). The ranges are Flink's own
 * ({@code NumberSequenceSource.splitNumberRange}), and a value names its range, so this holds whichever
 * reader got which range and after a restore.
 *
 * <p>Immutable; any thread.
 */
final class SequenceInterleave implements Serializable {
    private static final long serialVersionUID = 1L;
    private final long[] starts;

    private SequenceInterleave(long[] starts) {
        this.starts = starts;
    }

    /** For {@code fromSequence(0, Long.MAX_VALUE)} at parallelism {@code parallelism}. */
    static SequenceInterleave of(int parallelism) {
        List<NumberSequenceSource.NumberSequenceSplit> splits = new Ranges().split(parallelism);
        long[] starts = new long[splits.size()];
        for (int j = 0; j < starts.length; j++) {
            starts[j] = splits.get(j).from();
            if (j > 0 && starts[j] <= starts[j - 1]) {
                throw new IllegalStateException("Flink's sequence ranges are not in order: " + splits);
            }
        }
        return new SequenceInterleave(starts);
    }

    /** The value Sluice's source emits where Flink's emitted {@code value}. */
    long apply(long value) {
        int j = starts.length - 1;
        while (value < starts[j]) {
            j--;
        }
        return j + (value - starts[j]) * starts.length;
    }

    /** Where range {@code j} starts (for tests). */
    long rangeStart(int j) {
        return starts[j];
    }

    /** Flink's split of the range, reached through the protected method the source itself uses. */
    private static final class Ranges extends NumberSequenceSource {
        private static final long serialVersionUID = 1L;

        Ranges() {
            super(0, Long.MAX_VALUE);
        }

        List<NumberSequenceSplit> split(int parallelism) {
            return splitNumberRange(0, Long.MAX_VALUE, parallelism);
        }
    }
}
