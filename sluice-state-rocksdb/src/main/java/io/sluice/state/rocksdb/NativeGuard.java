package io.sluice.state.rocksdb;

/**
 * Keeps a RocksDB instance open while other threads use it: the thread writing a snapshot and the
 * threads reading metrics {@link #tryEnter enter} and {@link #exit exit}; the task thread's
 * {@link #closeAndAwait} refuses new users, tells long-running ones to stop ({@link #isClosing}) and
 * waits until the last has left, so native memory is never used after it was freed (which would
 * crash the process, not throw).
 *
 * <p>Threading: thread-safe.
 */
final class NativeGuard {
    /** Guarded by {@code this}. */
    private int users;
    /** Guarded by {@code this}. */
    private boolean closed;
    private volatile boolean closing;

    /** Whether the caller may use the instance; if so it must call {@link #exit} afterwards. */
    synchronized boolean tryEnter() {
        if (closed) {
            return false;
        }
        users++;
        return true;
    }

    synchronized void exit() {
        if (--users == 0) {
            notifyAll();
        }
    }

    /** Whether {@link #closeAndAwait} was called: a long-running user should stop soon. Any thread, cheap. */
    boolean isClosing() {
        return closing;
    }

    /**
     * Refuses new users and waits (uninterruptibly: leaving early would free memory in use) for the
     * current ones, which see {@link #isClosing} and stop. Idempotent.
     */
    synchronized void closeAndAwait() {
        closed = true;
        closing = true;
        boolean interrupted = false;
        while (users > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Runs {@code action} with no user inside (waiting, uninterruptibly, for the current ones to leave;
     * new ones wait for it): for replacing the instance during a restore.
     */
    synchronized void exclusively(Runnable action) {
        boolean interrupted = false;
        while (users > 0) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        try {
            action.run();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
