package io.sluice.compare.sluice;

import io.sluice.api.functions.Collector;
import io.sluice.api.source.Source;
import io.sluice.api.source.SourceReader;
import io.sluice.compare.LargeStateWorkload;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import java.nio.ByteBuffer;

/**
 * The source of {@link LargeStateJob}: subtask {@code i} of {@code p} emits {@code i, i + p, i + 2p, ...};
 * the load phase's values ({@link LargeStateWorkload#loading}) as fast as the job takes them, the later
 * ones at {@code perSubtask} records/s. Paced without blocking: a reader with no record due returns 0 and
 * says when the next is ({@link SourceReader#nanosUntilAvailable}), so checkpoint barriers are never held
 * up (a pacing map chained after Sluice's source would park inside one emit call of up to a batch of records).
 * Its position is the count of emitted records.
 *
 * <p>Threading: immutable; each reader is confined to its task thread.
 */
final class LargeStateSource implements Source<Long> {
    private static final long serialVersionUID = 1L;
    /** The shortest sleep a paced reader asks for; records due meanwhile are emitted together. */
    private static final long MIN_TICK_NANOS = 1_000_000;
    private final long keys;
    private final double perSubtask;

    LargeStateSource(long keys, double perSubtask) {
        this.keys = keys;
        this.perSubtask = perSubtask;
    }

    @Override
    public SourceReader<Long> createReader(int subtaskIndex, int parallelism) {
        return new Reader(subtaskIndex, parallelism);
    }

    @Override
    public boolean isBounded() {
        return false;
    }

    @Override
    public TypeSerializer<Long> serializer() {
        return Serializers.LONG;
    }

    /** One subtask's share. Task thread only. */
    private final class Reader implements SourceReader<Long> {
        private final int subtask;
        private final int stride;
        private long emitted;
        private long pacedSince = -1;
        private long paced;

        Reader(int subtask, int stride) {
            this.subtask = subtask;
            this.stride = stride;
        }

        private long next() {
            return subtask + emitted * stride;
        }

        @Override
        public int emit(Collector<Long> out, int maxRecords) {
            int n = 0;
            while (n < maxRecords) {
                long v = next();
                if (!LargeStateWorkload.loading(v, keys)) {
                    long now = System.nanoTime();
                    if (pacedSince < 0) {
                        pacedSince = now;
                    }
                    if (paced >= (now - pacedSince) * perSubtask / 1e9 + 1) {
                        break; // not due yet
                    }
                    paced++;
                }
                out.collect(v);
                emitted++;
                n++;
            }
            return n;
        }

        @Override
        public long nanosUntilAvailable() {
            if (pacedSince < 0) {
                return 0;
            }
            long dueAt = pacedSince + (long) (paced * 1e9 / perSubtask);
            long until = dueAt - System.nanoTime();
            return until <= 0 ? 0 : Math.max(until, MIN_TICK_NANOS);
        }

        @Override
        public byte[] snapshotPosition() {
            return ByteBuffer.allocate(8).putLong(emitted).array();
        }

        @Override
        public void restorePosition(byte[] position) {
            emitted = ByteBuffer.wrap(position).getLong();
            pacedSince = -1;
            paced = 0;
        }
    }
}
