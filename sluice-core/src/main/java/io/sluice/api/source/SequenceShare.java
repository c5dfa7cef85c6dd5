package io.sluice.api.source;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * What is left of a {@link SequenceSource} for one reader: arithmetic progressions {@code next, next + stride,
 * ...} up to the source's last value. A reader that was never rescaled has one, {@code from + i} with stride
 * {@code p}; a rescale hands each new reader a share of every old reader's progressions, split in two where
 * there are fewer progressions than readers ({@link #redistribute}). Splitting a progression into its even and
 * odd elements keeps each value in exactly one share.
 *
 * <p>Encoded as a position of version 2 ({@link #encode}): a byte {@code 2}, the number of progressions, then
 * each one's next value and stride (never 8 bytes long, so never taken for the count of version 1).
 *
 * <p>Mutable and confined to its reader's task thread; the static methods are pure.
 */
final class SequenceShare {
    static final byte VERSION = 2;

    /** The progressions with values left, in the order the reader takes turns on them. */
    private final List<long[]> progressions; // {next, stride}
    private final long toInclusive;
    private int turn;

    SequenceShare(List<long[]> progressions, long toInclusive) {
        this.progressions = new ArrayList<>(progressions);
        this.toInclusive = toInclusive;
    }

    boolean isEmpty() {
        return progressions.isEmpty();
    }

    /** The next value, taking turns over the progressions; the share must not be empty. */
    long take() {
        long[] p = progressions.get(turn);
        long value = p[0];
        if (Long.compareUnsigned(toInclusive - value, p[1]) < 0) {
            progressions.remove(turn); // that was its last value
        } else {
            p[0] = value + p[1];
            turn++;
        }
        if (turn >= progressions.size()) {
            turn = 0;
        }
        return value;
    }

    byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(1 + Integer.BYTES + progressions.size() * 2 * Long.BYTES);
        b.put(VERSION).putInt(progressions.size());
        // From the current turn on, so that a restored reader goes on where this one was.
        for (int i = 0; i < progressions.size(); i++) {
            long[] p = progressions.get((turn + i) % progressions.size());
            b.putLong(p[0]).putLong(p[1]);
        }
        return b.array();
    }

    /** Decodes a version-2 position of a reader of {@code [from, toInclusive]}; {@code source} names it in errors. */
    static List<long[]> decode(String source, byte[] position, long from, long toInclusive) {
        ByteBuffer b = ByteBuffer.wrap(position);
        if (position.length < 5 || b.get() != VERSION || position.length != 5 + b.getInt(1) * 16L) {
            throw new IllegalArgumentException(source + ": a position of " + position.length + " bytes that is not one"
                    + " of this source's (8 bytes, or version 2 with whole progressions). It was probably written by"
                    + " another source: check that the checkpoint belongs to this job");
        }
        int n = b.getInt();
        List<long[]> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long next = b.getLong();
            long stride = b.getLong();
            if (stride <= 0 || Long.compareUnsigned(next - from, toInclusive - from) > 0) {
                throw new IllegalArgumentException(source + ": restored progression " + next + " step " + stride
                        + " lies outside [" + from + ", " + toInclusive + "]; was the checkpoint taken with another range?");
            }
            out.add(new long[] {next, stride});
        }
        return out;
    }

    /**
     * The progressions reader {@code subtask} of {@code parallelism} takes from {@code all} (every old reader's,
     * in the order of their subtask indexes): first the longest progressions are split in two until there are
     * at least as many as readers (or none can be split), then reader {@code k} takes those at {@code k, k + p,
     * k + 2p, ...}. Every reader computes the same list, so the shares are disjoint and cover {@code all}.
     */
    static List<long[]> redistribute(List<long[]> all, long toInclusive, int subtask, int parallelism) {
        List<long[]> list = new ArrayList<>();
        all.forEach(p -> list.add(p.clone()));
        while (list.size() < parallelism) {
            int longest = -1;
            long most = 1;
            for (int i = 0; i < list.size(); i++) {
                long left = remaining(list.get(i), toInclusive);
                if (Long.compareUnsigned(left, most) > 0) {
                    longest = i;
                    most = left;
                }
            }
            if (longest < 0) {
                break; // every progression has one value left
            }
            long[] p = list.get(longest);
            list.set(longest, new long[] {p[0], p[1] * 2});
            list.add(longest + 1, new long[] {p[0] + p[1], p[1] * 2});
        }
        List<long[]> mine = new ArrayList<>();
        for (int i = subtask; i < list.size(); i += parallelism) {
            mine.add(list.get(i));
        }
        return mine;
    }

    /** How many values {@code p} has left, unsigned (an unbounded sequence may have more than Long.MAX_VALUE). */
    private static long remaining(long[] p, long toInclusive) {
        return Long.divideUnsigned(toInclusive - p[0], p[1]) + 1;
    }
}
