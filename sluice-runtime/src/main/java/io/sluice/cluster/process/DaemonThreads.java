package io.sluice.cluster.process;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code <prefix>N}, for the I/O executors of cluster processes. */
final class DaemonThreads {
    private DaemonThreads() {}

    static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + n.incrementAndGet());
            t.setDaemon(true);
            t.setContextClassLoader(DaemonThreads.class.getClassLoader()); // not the creating thread's, maybe a job's
            return t;
        };
    }
}
