package io.sluice.compare.flink;

import io.sluice.compare.WindowWorkload;
import org.apache.flink.api.common.eventtime.SerializableTimestampAssigner;
import org.apache.flink.api.common.functions.AggregateFunction;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.java.functions.KeySelector;

/**
 * The functions of the window job on every Flink version ({@code WindowJob} in {@code src/flink1} and
 * {@code src/flink2} wires them): the same {@link WindowWorkload} as Sluice's harness.
 *
 * <p>Flink's {@code fromSequence(0, 2L * perSplit - 1)} hands each of the 2 source subtasks a
 * contiguous range of {@code perSplit} values; {@link #interleaved} maps each value to the shared
 * sequence that Sluice's {@code SequenceSource} interleaves between its subtasks, so that both
 * subtasks' event times advance together, as in Sluice. The timestamp assigner runs in the source
 * (per-split watermarks), the mapping right after it in the same chain.
 *
 * <p>Thread rules: Flink calls each instance from its task thread only.
 */
final class WindowFunctions {
    private WindowFunctions() {}

    static long interleaved(long v, long perSplit) {
        return WindowWorkload.interleaved(v, 2, perSplit);
    }

    /** The event time of the source's raw value: {@link WindowWorkload#eventTime} of its interleaved number. */
    static final class EventTime implements SerializableTimestampAssigner<Long> {
        private static final long serialVersionUID = 1L;
        private final WindowWorkload workload;
        private final long perSplit;

        EventTime(WindowWorkload workload, long perSplit) {
            this.workload = workload;
            this.perSplit = perSplit;
        }

        @Override
        public long extractTimestamp(Long v, long recordTimestamp) {
            return workload.eventTime(interleaved(v, perSplit));
        }
    }

    /**
     * Maps the source's raw value to its interleaved number, and counts the records it passed on in
     * batches of 4,096 ({@link Recorder#processed}), the throughput count of the window scenarios (at
     * most 8,192 records of a 10 s window off either end).
     */
    static final class Interleave implements MapFunction<Long, Long> {
        private static final long serialVersionUID = 1L;
        private static final int BATCH = 4096;
        private final long perSplit;
        private transient long n;

        Interleave(long perSplit) {
            this.perSplit = perSplit;
        }

        @Override
        public Long map(Long v) {
            if (++n == BATCH) {
                Recorder.processed(n);
                n = 0;
            }
            return interleaved(v, perSplit);
        }
    }

    /** {@link WindowWorkload#key}. */
    static final class EventKey implements KeySelector<Long, Long> {
        private static final long serialVersionUID = 1L;
        private final WindowWorkload workload;

        EventKey(WindowWorkload workload) {
            this.workload = workload;
        }

        @Override
        public Long getKey(Long v) {
            return workload.key(v);
        }
    }

    /** Adds up {@link WindowWorkload#value} per window: the event times (tumbling) or a count (session). */
    static final class SumOfValues implements AggregateFunction<Long, Long, Long> {
        private static final long serialVersionUID = 1L;
        private final WindowWorkload workload;

        SumOfValues(WindowWorkload workload) {
            this.workload = workload;
        }

        @Override
        public Long createAccumulator() {
            return 0L;
        }

        @Override
        public Long add(Long v, Long acc) {
            return acc + workload.value(v);
        }

        @Override
        public Long getResult(Long acc) {
            return acc;
        }

        @Override
        public Long merge(Long a, Long b) {
            return a + b;
        }
    }
}
