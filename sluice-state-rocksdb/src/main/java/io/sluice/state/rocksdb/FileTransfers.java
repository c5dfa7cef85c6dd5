package io.sluice.state.rocksdb;

import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the file transfers of one operation (the uploads of one subtask's checkpoint, the downloads of its
 * restore) up to {@code state.backend.rocksdb.transfer-threads} files at a time: on the calling thread and on
 * helpers from the task executor's transfer pool ({@link RocksDbStateBackend}).
 *
 * <p>Why: one file after the other, a checkpoint that uploads much (a compaction's output, or the whole state
 * after a restore from another job's checkpoint or at another parallelism) waited for each file's round trip to
 * the storage, and on a task executor whose cores also process records it had one thread's share of them.
 *
 * <p>An operation ends only when every transfer it started has ended, also when one failed or the calling thread
 * was interrupted: what the helpers wrote is known to the caller before it cleans up after a failure. The first
 * failure stops the transfers not yet started and is thrown (later ones suppressed in it). An interrupt of the
 * caller does the same; a transfer already running finishes (as a single-threaded upload blocked in a write did).
 *
 * <p>Threading: thread-safe; {@link #map} blocks its caller until the operation ended.
 */
final class FileTransfers {
    /** Runs one item's transfer and returns its result; may throw. */
    @FunctionalInterface
    interface Transfer<T, R> {
        R run(T item) throws Exception;
    }

    private final int parallelism;
    private final Executor helpers;

    /**
     * @param parallelism at most this many transfers of one operation at a time (1: all on the calling thread)
     * @param helpers     runs the helpers; one that rejects leaves the work to the ones that run and the caller
     */
    FileTransfers(int parallelism, Executor helpers) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be at least 1, got " + parallelism);
        }
        this.parallelism = parallelism;
        this.helpers = helpers;
    }

    int parallelism() {
        return parallelism;
    }

    /**
     * Runs {@code transfer} for each item, at most {@link #parallelism} at a time, and returns the results in the
     * items' order.
     *
     * @throws RuntimeException the first failure (a checked one wrapped: an {@link java.io.IOException} in an
     *                          {@link UncheckedIOException}), with the others of this operation suppressed; an
     *                          {@link UncheckedIOException} of an {@link InterruptedIOException} when the calling
     *                          thread was interrupted (its interrupt status is set again)
     */
    <T, R> List<R> map(List<T> items, Transfer<T, R> transfer) {
        Object[] results = new Object[items.size()];
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Runnable worker = () -> work(items, transfer, results, next, failure, false);
        int helperCount = Math.min(parallelism, items.size()) - 1;
        CountDownLatch helpersDone = new CountDownLatch(Math.max(helperCount, 0));
        for (int h = 0; h < helperCount; h++) {
            try {
                helpers.execute(() -> {
                    try {
                        worker.run();
                    } finally {
                        helpersDone.countDown();
                    }
                });
            } catch (RejectedExecutionException e) {
                helpersDone.countDown(); // fewer helpers: the caller and the others do its share
            }
        }
        boolean interrupted = work(items, transfer, results, next, failure, true);
        interrupted |= awaitUninterruptibly(helpersDone, failure);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        Throwable t = failure.get();
        if (t != null) {
            throw unchecked(t);
        }
        @SuppressWarnings("unchecked")
        List<R> list = (List<R>) Arrays.asList(results);
        return new ArrayList<>(list);
    }

    /**
     * Takes the next item not taken yet and transfers it, until none is left or a transfer failed; on the calling
     * thread ({@code caller}), an interrupt also ends it (recorded as the failure, and returned as {@code true}).
     */
    private static <T, R> boolean work(List<T> items, Transfer<T, R> transfer, Object[] results, AtomicInteger next,
                                    AtomicReference<Throwable> failure, boolean caller) {
        int i;
        while (failure.get() == null && (i = next.getAndIncrement()) < items.size()) {
            if (caller && Thread.currentThread().isInterrupted()) {
                fail(failure, new InterruptedIOException("interrupted while transferring files"));
                return true;
            }
            try {
                results[i] = transfer.run(items.get(i));
            } catch (Throwable t) {
                fail(failure, t);
            }
        }
        return false;
    }

    private static void fail(AtomicReference<Throwable> failure, Throwable t) {
        if (!failure.compareAndSet(null, t) && failure.get() != t) {
            failure.get().addSuppressed(t);
        }
    }

    /** Waits for the helpers; an interrupt stops the transfers not started yet. Returns whether one came. */
    private static boolean awaitUninterruptibly(CountDownLatch helpersDone, AtomicReference<Throwable> failure) {
        boolean interrupted = false;
        while (true) {
            try {
                helpersDone.await();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
                fail(failure, new InterruptedIOException("interrupted while transferring files"));
            }
        }
    }

    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof RuntimeException re) {
            return re;
        }
        if (t instanceof Error error) {
            throw error;
        }
        if (t instanceof java.io.IOException io) {
            return new UncheckedIOException(io.getMessage(), io);
        }
        return new IllegalStateException(t.getMessage(), t);
    }
}
