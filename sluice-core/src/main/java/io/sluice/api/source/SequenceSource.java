package io.sluice.api.source;

import io.sluice.api.functions.Collector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Emits consecutive {@code long} values: the benchmark and demo source.
 *
 * <p>Subtask {@code i} of {@code p} emits {@code from + i, from + i + p, from + i + 2p, ...}, so the
 * subtasks together cover the range exactly once. A reader's position is the number of records that
 * subtask has emitted (8 bytes), which pins down the next value given the same parallelism.
 *
 * <p>It {@linkplain #redistributesPositions() redistributes its positions}: restored at another parallelism,
 * the new readers split what the old ones had left between them (each old reader's progression, halved
 * into even and odd elements where there are more new readers than progressions), and a rescaled reader's
 * position lists its progressions instead (version 2, see {@code SequenceShare}). The values emitted before
 * and after a rescale are still each value of the range exactly once; their order per reader changes.
 *
 * <p>An {@linkplain #unbounded(long) unbounded} sequence never ends in practice; it stops at
 * {@link Long#MAX_VALUE} rather than wrapping around. {@link #withRate} paces emission (a reader
 * with no record due emits none and tells the task when the next one is, so the task sleeps until then,
 * in ticks of at least {@value #MIN_PACING_TICK_NANOS} ns: see {@link #withRate});
 * without it, {@link SourceReader#emit} is a tight loop that allocates nothing but the boxed {@code Long}s.
 *
 * <p>Threading: the source is immutable and may be shared; each reader is confined to its task
 * thread, as {@link SourceReader} requires.
 */
public final class SequenceSource implements Source<Long> {
    private static final long serialVersionUID = 1L;
    /**
     * The shortest sleep a paced reader asks for (1 ms): records that fall due meanwhile are emitted
     * together when it wakes.
     */
    static final long MIN_PACING_TICK_NANOS = 1_000_000;
    private final long from;
    private final long toInclusive;
    private final boolean bounded;
    /** Records per second over all subtasks; 0 means unlimited. */
    private final double recordsPerSecond;

    private SequenceSource(long from, long toInclusive, boolean bounded, double recordsPerSecond) {
        this.from = from;
        this.toInclusive = toInclusive;
        this.bounded = bounded;
        this.recordsPerSecond = recordsPerSecond;
    }

    /** The values {@code from} to {@code toInclusive}, both included. */
    public static SequenceSource bounded(long from, long toInclusive) {
        if (from > toInclusive) {
            throw new IllegalArgumentException("SequenceSource.bounded(" + from + ", " + toInclusive
                    + "): from must be <= toInclusive; for a single value pass it as both bounds");
        }
        return new SequenceSource(from, toInclusive, true, 0);
    }

    /** The values {@code from, from + 1, ...}; stops only at {@link Long#MAX_VALUE}. */
    public static SequenceSource unbounded(long from) {
        return new SequenceSource(from, Long.MAX_VALUE, false, 0);
    }

    /**
     * A copy of this source that emits at most {@code recordsPerSecond} records per second in total:
     * each of {@code p} subtasks emits {@code recordsPerSecond / p}. A reader that fell behind (for
     * example while the task was busy) catches up in bursts of at most the {@code maxRecords} of
     * each emit call.
     *
     * <p>A reader's first record (also the first after a restore) is due at once. A reader with no
     * record due sleeps until the next one is due, but never less than 1 ms,
     * and then emits every record due by then: at 10,000 records/s a subtask emits about 10 records
     * every millisecond rather than one every 100 µs. The rate over any second is the same; the task
     * (and the tasks it feeds) wake about 1,000 times a second at most instead of once per record,
     * which on a busy machine is most of a paced job's CPU.
     */
    public SequenceSource withRate(double recordsPerSecond) {
        if (!(recordsPerSecond > 0) || Double.isInfinite(recordsPerSecond)) {
            throw new IllegalArgumentException("SequenceSource.withRate(" + recordsPerSecond
                    + "): the rate must be a positive, finite number of records per second;"
                    + " leave withRate out for an unlimited rate");
        }
        return new SequenceSource(from, toInclusive, bounded, recordsPerSecond);
    }

    @Override
    public SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
        ReaderPositions.checkSubtask(toString(), subtaskIndex, parallelism);
        return new Reader(this, subtaskIndex, parallelism);
    }

    @Override
    public boolean isBounded() {
        return bounded;
    }

    /** {@code true}: restored at another parallelism, the readers split what is left (see the class doc). */
    @Override
    public boolean redistributesPositions() {
        return true;
    }

    /** Plain 8-byte longs: no type tag on the wire and no type dispatch per record. */
    @Override
    public io.sluice.core.serialization.TypeSerializer<Long> serializer() {
        return io.sluice.core.serialization.Serializers.LONG;
    }

    @Override
    public String toString() {
        String range = bounded ? "[" + from + ", " + toInclusive + "]" : "[" + from + ", ...)";
        return "SequenceSource" + range + (recordsPerSecond > 0 ? " at " + recordsPerSecond + " records/s" : "");
    }

    /** One subtask's share of the sequence. Confined to the task thread. */
    private static final class Reader implements SourceReader<Long> {
        private final SequenceSource source;
        private final String description;
        private final long from;
        private final int subtaskIndex;
        private final long first;
        private final long toInclusive;
        private final int stride;
        /** Index (unsigned) of this subtask's last value; meaningless when {@link #empty}. */
        private final long lastIndex;
        private final boolean empty;
        /** Nanoseconds per record for this subtask; 0 when unlimited. */
        private final double nanosPerRecord;

        private long next;
        private long emitted;
        private boolean exhausted;
        /** After a restore at another parallelism (or from such a reader's position): what is left; else null. */
        private @Nullable SequenceShare share;

        private boolean pacingStarted;
        private long pacingStartNanos;
        private long emittedSincePacingStart;

        Reader(SequenceSource source, int subtaskIndex, int parallelism) {
            this.source = source;
            this.description = source + " subtask " + subtaskIndex + " of " + parallelism;
            this.from = source.from;
            this.subtaskIndex = subtaskIndex;
            this.first = source.from + subtaskIndex;
            this.toInclusive = source.toInclusive;
            this.stride = parallelism;
            long span = source.toInclusive - source.from; // unsigned: may exceed Long.MAX_VALUE
            this.empty = Long.compareUnsigned(subtaskIndex, span) > 0;
            this.lastIndex = empty ? 0 : Long.divideUnsigned(span - subtaskIndex, parallelism);
            this.nanosPerRecord = source.recordsPerSecond > 0
                    ? TimeUnit.SECONDS.toNanos(1) * (double) parallelism / source.recordsPerSecond
                    : 0;
            this.next = first;
            this.exhausted = empty;
        }

        @Override
        public int emit(Collector<Long> out, int maxRecords) {
            if (exhausted) {
                return END_OF_INPUT;
            }
            int limit = nanosPerRecord > 0 ? Math.min(maxRecords, dueRecords(maxRecords)) : maxRecords;
            int n = 0;
            SequenceShare left = share;
            if (left != null) {
                for (; n < limit && !exhausted; n++) {
                    out.collect(left.take());
                    exhausted = left.isEmpty();
                }
                emittedSincePacingStart += n;
                return n;
            }
            while (n < limit) {
                long value = next;
                out.collect(value);
                n++;
                emitted++;
                if (Long.compareUnsigned(toInclusive - value, stride) < 0) {
                    exhausted = true;
                    break;
                }
                next = value + stride;
            }
            emittedSincePacingStart += n;
            return n;
        }

        /** How many records are due now (0 if none is yet: {@link #nanosUntilAvailable} says when). */
        private int dueRecords(int maxRecords) {
            long now = System.nanoTime();
            if (!pacingStarted) {
                pacingStarted = true;
                pacingStartNanos = now;
            }
            return (int) Math.max(0, Math.min(dueAt(now), maxRecords));
        }

        /** Until the next record is due; 0 when one is due, the input ended or the rate is unlimited. */
        @Override
        public long nanosUntilAvailable() {
            if (exhausted || nanosPerRecord == 0 || !pacingStarted) {
                return 0;
            }
            double nextDueNanos = emittedSincePacingStart * nanosPerRecord; // record k is due k records' time after the start
            long untilNext = (long) Math.ceil(nextDueNanos) - (System.nanoTime() - pacingStartNanos);
            return untilNext <= 0 ? 0 : Math.max(untilNext, MIN_PACING_TICK_NANOS);
        }

        private long dueAt(long now) {
            return (long) ((now - pacingStartNanos) / nanosPerRecord) + 1 - emittedSincePacingStart;
        }

        @Override
        public byte[] snapshotPosition() {
            SequenceShare left = share;
            return left != null ? left.encode() : ReaderPositions.encodeLong(emitted);
        }

        @Override
        public void restorePosition(byte[] position) {
            if (position != null && position.length != Long.BYTES) {
                restoreShare(SequenceShare.decode(description, position, from, toInclusive));
                return;
            }
            long restored = ReaderPositions.decodeLong(description, position);
            if (restored < 0) {
                throw new IllegalArgumentException(description + ": restored position " + restored
                        + " is negative; a position counts emitted records, so the checkpoint data is corrupt");
            }
            boolean pastEnd = empty ? restored > 0 : restored != 0 && Long.compareUnsigned(restored - 1, lastIndex) > 0;
            if (pastEnd) {
                throw new IllegalArgumentException(description + ": restored position " + restored
                        + " is more records than this subtask has in total; was the checkpoint taken with a"
                        + " different range or parallelism?");
            }
            emitted = restored;
            next = first + restored * stride;
            exhausted = empty || (restored != 0 && Long.compareUnsigned(restored - 1, lastIndex) == 0);
            pacingStarted = false;
            emittedSincePacingStart = 0;
        }

        @Override
        public void restoreRescaledPositions(List<SubtaskPosition> previous) {
            List<long[]> left = new ArrayList<>();
            for (SubtaskPosition p : previous) {
                if (p.finished()) {
                    continue;
                }
                byte[] position = java.util.Objects.requireNonNull(p.position(), "an unfinished subtask's position");
                if (position.length != Long.BYTES) {
                    left.addAll(SequenceShare.decode(description, position, from, toInclusive));
                    continue;
                }
                // Version 1: old reader j of P had emitted 'count' values of from + j, from + j + P, ...
                Reader old = new Reader(source, p.subtaskIndex(), p.parallelism());
                old.restorePosition(position);
                if (!old.exhausted) {
                    left.add(new long[] {old.next, old.stride});
                }
            }
            restoreShare(SequenceShare.redistribute(left, toInclusive, subtaskIndex, stride));
        }

        private void restoreShare(List<long[]> progressions) {
            SequenceShare left = new SequenceShare(progressions, toInclusive);
            share = left;
            exhausted = left.isEmpty();
            pacingStarted = false;
            emittedSincePacingStart = 0;
        }
    }
}
