package io.sluice.concurrent;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Makes the threads of Sluice's own executors: daemon threads (none of them keeps a process
 * alive; processes end through their shutdown paths), named after what they do, and with Sluice's
 * class loader as their context class loader. Not the creating thread's: a pool makes its
 * threads lazily, from whichever thread submits first, which may be a job's task thread, and a
 * pooled thread that kept that job's class loader as its context would keep every class of the
 * ended job loaded for as long as the pool lives.
 *
 * <p>Thread-safe.
 */
public final class DaemonThreadFactory implements ThreadFactory {
    private static final ClassLoader SLUICE_CLASS_LOADER = DaemonThreadFactory.class.getClassLoader();

    private final String name;
    /** null: every thread gets {@link #name}; else the name is {@code name + n}, n counting from 1. */
    private final AtomicInteger counter;

    private DaemonThreadFactory(String name, boolean numbered) {
        this.name = Objects.requireNonNull(name, "name");
        this.counter = numbered ? new AtomicInteger() : null;
    }

    /** Threads named {@code prefix1}, {@code prefix2}, ... (the prefix usually ends with {@code -}). */
    public static DaemonThreadFactory numbered(String prefix) {
        return new DaemonThreadFactory(prefix, true);
    }

    /** Threads all named {@code name}: for an executor of one thread, or a pool whose threads need no number. */
    public static DaemonThreadFactory named(String name) {
        return new DaemonThreadFactory(name, false);
    }

    /**
     * {@code base}'s threads with Sluice's class loader as their context class loader: for a
     * library's own factory (Netty's makes threads that its event loops run faster on), which
     * names them and makes them daemons itself.
     */
    public static ThreadFactory withSluiceClassLoader(ThreadFactory base) {
        Objects.requireNonNull(base, "base");
        return r -> {
            Thread t = base.newThread(r);
            t.setContextClassLoader(SLUICE_CLASS_LOADER);
            return t;
        };
    }

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, counter == null ? name : name + counter.incrementAndGet());
        t.setDaemon(true);
        t.setContextClassLoader(SLUICE_CLASS_LOADER);
        return t;
    }
}
