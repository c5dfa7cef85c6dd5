package io.sluice.compare.flink;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The faults of the {@code slowfs://} file system, set by the harness and read by Flink's I/O
 * threads (and, in Flink 1.13, its job master's main thread): a latency added to every file
 * opened for reading, and a stall that blocks every operation until released. Also counts the
 * files opened, and the checkpoint metadata among them: Flink's ZooKeeper HA stores each
 * completed checkpoint as a {@code completedCheckpoint…} file in its HA storage directory, which
 * points to the checkpoint's {@code _metadata}; reading either is a metadata read.
 *
 * <p>Thread rules: every method may be called from any thread; state is static because Flink
 * creates the file system from a factory and the harness cannot hand it an instance.
 */
public final class StorageFaults {
    private StorageFaults() {}

    private static final Object LOCK = new Object();
    private static volatile long readLatencyNanos;
    private static boolean stalled; // guarded by LOCK
    private static final AtomicLong OPENS = new AtomicLong();
    private static final AtomicLong METADATA_READS = new AtomicLong();
    private static final AtomicLong BLOCKED = new AtomicLong();

    public static void setReadLatency(Duration latency) {
        readLatencyNanos = latency.toNanos();
    }

    public static void stall() {
        synchronized (LOCK) {
            stalled = true;
        }
    }

    public static void release() {
        synchronized (LOCK) {
            stalled = false;
            LOCK.notifyAll();
        }
    }

    /** Removes every fault (latency and stall); counters keep counting. */
    public static void heal() {
        setReadLatency(Duration.ZERO);
        release();
    }

    public static long metadataReads() {
        return METADATA_READS.get();
    }

    public static long opens() {
        return OPENS.get();
    }

    /** Operations currently blocked by a stall. */
    public static long blocked() {
        return BLOCKED.get();
    }

    /** Called at the start of every file-system operation: blocks while storage is stalled. */
    static void gate(String operation, String path) throws IOException {
        synchronized (LOCK) {
            if (!stalled) {
                return;
            }
            BLOCKED.incrementAndGet();
            try {
                while (stalled) {
                    LOCK.wait();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while storage was stalled, during " + operation + " "
                        + path);
            } finally {
                BLOCKED.decrementAndGet();
            }
        }
    }

    /** Called when a file is opened for reading: counts it and adds the read latency. */
    static void onOpen(String path) throws IOException {
        gate("open", path);
        OPENS.incrementAndGet();
        String name = path.substring(path.lastIndexOf('/') + 1);
        if (name.startsWith("completedCheckpoint") || name.equals("_metadata")) {
            METADATA_READS.incrementAndGet();
        }
        long latency = readLatencyNanos;
        if (latency > 0) {
            try {
                TimeUnit.NANOSECONDS.sleep(latency); // the injected fault itself
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted during the injected read latency of " + path);
            }
        }
    }
}
