package io.sluice.network;

import java.util.function.LongSupplier;

/**
 * Decides how full a {@link RecordWriter}'s buffer gets before it is handed to its channel, so that
 * a backpressured edge holds about {@code target} worth of records in flight instead of every slot
 * of every channel filled to the buffer size.
 *
 * <p>Why: a checkpoint barrier waits behind every record queued before it. The slots of a channel
 * hold {@code buffers-per-channel × buffer-size} bytes; when the consumer is slow (a keyed task
 * bound by RocksDB reads processes tens of thousands of small records a second) that is most of a
 * second of its work, and the barrier's wait with it. Fewer slots would shorten the wait but cost
 * throughput (a producer blocked on one full channel starves the others); smaller buffers keep the
 * slots. The size follows the throughput measured each period: a fast edge keeps full buffers.
 *
 * <p>How: every {@link #PERIOD_NANOS} (measured on the writer's sends) it reads how many bytes
 * the consumers took from the writer's channels and how long the writer was blocked on full
 * channels. (Not the bytes the writer handed over: right after the size drops, the slots still
 * hold the earlier, larger buffers, and each small one handed over as one of those drains would
 * make the rate look smaller than it is, and the size fall to the minimum.) Blocked for less than a
 * tenth of the period: no backpressure, nothing builds up in the channels, so the size goes back to
 * the maximum (fewest hand-overs). Otherwise the consumers take {@code rate} bytes a second, and
 * {@code rate × target ÷ slots} per buffer (between {@link #MIN_BYTES} and the maximum) keeps about
 * {@code target} in the slots. Each period moves the size half way to that figure, so one odd
 * period does not swing it.
 *
 * <p>The target trades the barrier's wait against slack: on a machine whose cores the producers,
 * consumers and RocksDB's compactions share, a consumer whose channels hold too little runs dry
 * while its producers wait for a core (on 2 cores, 100 ms cost a state-bound job's load phase
 * about 7 % of its records per second, 300 ms nothing measurable: docs/benchmarks.md, "Buffers
 * sized to the throughput").
 *
 * <p>Threading: the writer's task thread only, like the {@link RecordWriter} that owns it; {@link
 * #size()} may be read racily by other threads (metrics).
 */
final class BufferDebloater {
    /** How often the size is reconsidered. */
    static final long PERIOD_NANOS = 200_000_000L;
    /** The smallest hand-over size (or the maximum, if that is smaller). */
    static final int MIN_BYTES = 1024;

    private final int maxBytes;
    private final int minBytes;
    private final long targetNanos;
    private final int slots;
    private final LongSupplier nanoClock;
    private final LongSupplier blockedNanos;
    private final LongSupplier bytesTaken;

    private long periodStart;
    private long blockedAtPeriodStart;
    private long takenAtPeriodStart;
    private volatile int size;

    /**
     * @param maxBytes the configured buffer size: the size without backpressure
     * @param targetNanos the time in flight to aim for; 0 turns sizing off (always {@code maxBytes})
     * @param slots the buffers the writer's channels hold together (their capacities summed)
     * @param nanoClock the clock periods are measured on
     * @param blockedNanos the writer's total time blocked on full channels, on the same clock
     * @param bytesTaken the bytes the consumers took from the writer's channels so far
     */
    BufferDebloater(int maxBytes, long targetNanos, int slots, LongSupplier nanoClock, LongSupplier blockedNanos,
                    LongSupplier bytesTaken) {
        if (maxBytes < 1 || slots < 1 || targetNanos < 0) {
            throw new IllegalArgumentException("maxBytes " + maxBytes + " and slots " + slots
                    + " must be positive, targetNanos " + targetNanos + " not negative");
        }
        this.maxBytes = maxBytes;
        this.minBytes = Math.min(MIN_BYTES, maxBytes);
        this.targetNanos = targetNanos;
        this.slots = slots;
        this.nanoClock = nanoClock;
        this.blockedNanos = blockedNanos;
        this.bytesTaken = bytesTaken;
        this.size = maxBytes;
        if (targetNanos > 0) {
            this.periodStart = nanoClock.getAsLong();
            this.blockedAtPeriodStart = blockedNanos.getAsLong();
            this.takenAtPeriodStart = bytesTaken.getAsLong();
        }
    }

    /** The number of bytes at which the writer hands a buffer over now. */
    int size() {
        return size;
    }

    /** The writer handed over a buffer; returns the size for the next ones. */
    int afterBufferSent() {
        if (targetNanos == 0) {
            return maxBytes;
        }
        long now = nanoClock.getAsLong();
        long elapsed = now - periodStart;
        if (elapsed < PERIOD_NANOS) {
            return size;
        }
        long blocked = blockedNanos.getAsLong();
        long blockedInPeriod = blocked - blockedAtPeriodStart;
        long taken = bytesTaken.getAsLong();
        int wanted;
        if (blockedInPeriod * 10 < elapsed) {
            wanted = maxBytes;
        } else {
            double bytesPerNano = (double) (taken - takenAtPeriodStart) / elapsed;
            double perSlot = bytesPerNano * targetNanos / slots;
            wanted = (int) Math.max(minBytes, Math.min(maxBytes, perSlot));
        }
        // Rounded towards the wanted size, so that it is reached.
        int next = (int) (wanted < size ? ((long) size + wanted) / 2 : ((long) size + wanted + 1) / 2);
        size = next;
        periodStart = now;
        blockedAtPeriodStart = blocked;
        takenAtPeriodStart = taken;
        return next;
    }
}
