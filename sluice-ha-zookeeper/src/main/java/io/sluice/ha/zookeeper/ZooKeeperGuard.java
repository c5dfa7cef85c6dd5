package io.sluice.ha.zookeeper;

import io.sluice.rpc.MainThreads;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The main-thread check made before every ZooKeeper operation, counted so that tests can assert
 * the guard was actually exercised. Thread-safe.
 */
public final class ZooKeeperGuard {
    private static final AtomicLong CHECKS = new AtomicLong();

    private ZooKeeperGuard() {}

    /** Fails with {@link io.sluice.rpc.MainThreadViolationException} on a main thread (when the guard is on). */
    static void check(String operation, String path) {
        CHECKS.incrementAndGet();
        MainThreads.checkNotMainThread("zookeeper " + operation + " " + path);
    }

    /** How many ZooKeeper operations passed the check in this JVM. */
    public static long checks() {
        return CHECKS.get();
    }
}
