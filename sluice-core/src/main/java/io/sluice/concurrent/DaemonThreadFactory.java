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
 * ended job loaded for as long as the pool lives. The one exception is a thread that runs a job's
 * own code and ends with it (a sink's commit thread): {@link #withContextClassLoader} gives it the
 * job's class loader, which libraries of the job (Kafka's clients) load their plug-ins through.
 *
 * <p>Thread-safe.
 */
public final class DaemonThreadFactory implements ThreadFactory {
    private static final ClassLoader SLUICE_CLASS_LOADER = DaemonThreadFactory.class.getClassLoader();

    private final String name;
    /** null: every thread gets {@link #name}; else the name is {@code name + n}, n counting from 1. */
    private final AtomicInteger counter;
    private final ClassLoader contextClassLoader;

    private DaemonThreadFactory(String name, boolean numbered, ClassLoader contextClassLoader) {
        this.name = Objects.requireNonNull(name, "name");
        this.counter = numbered ? new AtomicInteger() : null;
        this.contextClassLoader = Objects.requireNonNull(contextClassLoader, "contextClassLoader");
    }

    /** Threads named {@code prefix1}, {@code prefix2}, ... (the prefix usually ends with {@code -}). */
    public static DaemonThreadFactory numbered(String prefix) {
        return new DaemonThreadFactory(prefix, true, SLUICE_CLASS_LOADER);
    }

    /** Threads all named {@code name}: for an executor of one thread, or a pool whose threads need no number. */
    public static DaemonThreadFactory named(String name) {
        return new DaemonThreadFactory(name, false, SLUICE_CLASS_LOADER);
    }

    /**
     * This factory's threads with {@code loader} as their context class loader instead of Sluice's:
     * only for threads that run a job's code and end with the job (a two-phase-commit sink's commit
     * thread, whose committer is the job's), never for a pool that outlives a job.
     */
    public DaemonThreadFactory withContextClassLoader(ClassLoader loader) {
        return new DaemonThreadFactory(name, counter != null, loader);
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
        t.setContextClassLoader(contextClassLoader);
        return t;
    }
}
