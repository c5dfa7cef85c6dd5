package io.sluice.compare.flink;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the job's functions report to the harness, which runs them in the same JVM (Flink's
 * MiniCluster). Static, because Flink deserializes its own copies of the functions.
 *
 * <p>Epochs mark recoveries: before it injects a failure or starts a new job manager, the harness
 * calls {@link #nextEpoch()}; a counting instance opened after that belongs to the new epoch, and
 * the first record it processes whose key already has a count (restored state) sets
 * {@link #restoredAt()}.
 *
 * <p>Thread rules: any thread.
 */
public final class Recorder {
    private Recorder() {}

    private static final AtomicLong EPOCH = new AtomicLong();
    private static final AtomicLong RESTORED_EPOCH = new AtomicLong(-1);
    private static volatile long restoredAtNanos;
    private static volatile long failedAtNanos;
    private static final AtomicBoolean FAIL_NEXT = new AtomicBoolean();
    private static final LongAdder PROCESSED = new LongAdder();
    private static final AtomicLong CHECKPOINTS_COMPLETED = new AtomicLong();
    private static final AtomicLong LATEST_CHECKPOINT = new AtomicLong(Long.MIN_VALUE);

    /** Starts a new epoch; returns its number. */
    public static long nextEpoch() {
        return EPOCH.incrementAndGet();
    }

    static long epoch() {
        return EPOCH.get();
    }

    /** Makes the next record processed by a counting instance throw. */
    public static void failNextRecord() {
        FAIL_NEXT.set(true);
    }

    static boolean shouldFail() {
        return FAIL_NEXT.get() && FAIL_NEXT.compareAndSet(true, false);
    }

    static void failed() {
        failedAtNanos = System.nanoTime();
    }

    /** nanoTime when the last injected failure was thrown. */
    public static long failedAt() {
        return failedAtNanos;
    }

    static void restored(long epoch) {
        long now = System.nanoTime();
        long prev = RESTORED_EPOCH.get();
        if (epoch > prev && RESTORED_EPOCH.compareAndSet(prev, epoch)) {
            restoredAtNanos = now;
        }
    }

    /** True once an instance of {@code epoch} processed a record with restored state. */
    public static boolean isRestored(long epoch) {
        return RESTORED_EPOCH.get() >= epoch;
    }

    /** nanoTime of the first record with restored state of the latest restored epoch. */
    public static long restoredAt() {
        return restoredAtNanos;
    }

    static void processed(long n) {
        PROCESSED.add(n);
    }

    /** Records processed by the counting operator (in steps of the counting batch). */
    public static long processed() {
        return PROCESSED.sum();
    }

    /** A new job is about to be submitted: its checkpoint ids start again from 1. */
    static void jobSubmitted() {
        LATEST_CHECKPOINT.set(Long.MIN_VALUE);
    }

    /** A subtask was notified that {@code checkpointId} completed; each id counts once, whichever subtask reports it. */
    static void checkpointCompleted(long checkpointId) {
        long seen;
        do {
            seen = LATEST_CHECKPOINT.get();
            if (checkpointId <= seen) {
                return;
            }
        } while (!LATEST_CHECKPOINT.compareAndSet(seen, checkpointId));
        CHECKPOINTS_COMPLETED.incrementAndGet();
    }

    /** Checkpoints completed in this JVM, as the counting subtasks were notified of them. */
    public static long checkpointsCompleted() {
        return CHECKPOINTS_COMPLETED.get();
    }
}
