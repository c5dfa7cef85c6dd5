package io.sluice.storage;

import java.io.InputStream;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.function.Supplier;

/**
 * A {@link BlobStore} for tests that injects storage faults in front of a real delegate. Faults
 * can be switched at any time, also while calls are in flight:
 *
 * <ul>
 *   <li>{@link #setLatency(Duration)}: every call first sleeps that long (interruptibly).</li>
 *   <li>{@link #setReadLatency(Duration)}: every {@link #get} and {@link #openRead} (a blob read:
 *       checkpoint metadata or a state file) first sleeps that long, in addition to {@link #setLatency}; writes, listings,
 *       existence checks and deletes are not delayed by it.</li>
 *   <li>{@link #refuseConnections()}: every call fails with a {@link StorageException} caused by
 *       {@code ConnectException("Connection refused")}, as an unreachable S3 endpoint would.</li>
 *   <li>{@link #hang()}: every call blocks until {@link #release()} or {@link #heal()}, like a
 *       store that accepts the connection but never answers. {@link #blockedCalls()} tells how many
 *       calls are stuck. An interrupt ends a stuck call with a {@link StorageException} and leaves
 *       the thread's interrupt flag set.</li>
 *   <li>{@link #failAfter(int)}: the next {@code n} calls pass, every later one fails until
 *       {@link #heal()}.</li>
 * </ul>
 *
 * <p>Faults apply to every operation except {@link #describe()}, which never blocks (the read latency
 * only to {@link #get} and {@link #openRead}). The streaming methods are faulted and counted like their
 * array forms: {@link #put(String, BlobContent)} as a put, {@link #openRead} as a get (a read). For
 * {@link #openRead} the faults apply to the opening; reading the opened stream afterwards is not delayed
 * or failed.
 * {@link #calls()} counts every call that entered, including failed ones; {@link #readsInFlight()}
 * and {@link #maxReadsInFlight()} count the reads ({@link #get}s, {@link #openRead}s until they return the
 * stream) running at once (injected delay included), so a test can check a bound on concurrent reads.
 *
 * <p>Threading: fully thread-safe; the switches may be flipped from any thread. Calls block as
 * much as the delegate plus the injected delay, so never call it from a main thread.
 */
public final class FaultInjectingBlobStore implements BlobStore {
    private final BlobStore delegate;
    private final Object lock = new Object();
    private final AtomicLong calls = new AtomicLong();
    private final AtomicLong reads = new AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger readsInFlight = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger maxReadsInFlight = new java.util.concurrent.atomic.AtomicInteger();

    private volatile Duration latency = Duration.ZERO;
    private volatile Duration readLatency = Duration.ZERO;
    // Guarded by lock.
    private boolean refusing;
    private boolean hanging;
    private long hangGeneration;
    private int blocked;
    private int passesLeft = -1; // -1: failAfter not armed

    /**
     * A blob-store decorator (for {@code LocalCluster.Builder.blobStoreDecorator}) that wraps each
     * store it is given in a fault-injecting one and puts the latest wrapper into {@code last}, so a
     * test can flip its switches once the cluster has opened the store.
     */
    public static UnaryOperator<BlobStore> capturingInto(AtomicReference<FaultInjectingBlobStore> last) {
        return store -> {
            FaultInjectingBlobStore f = new FaultInjectingBlobStore(store);
            last.set(f);
            return f;
        };
    }

    public FaultInjectingBlobStore(BlobStore delegate) {
        this.delegate = delegate;
    }

    /** Adds {@code delay} before every call; {@link Duration#ZERO} removes it. */
    public void setLatency(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("Injected latency must not be negative, got " + delay);
        }
        this.latency = delay;
    }

    /**
     * Adds {@code delay} before every {@link #get} only (on top of {@link #setLatency}), to model a
     * store whose reads are slow; {@link Duration#ZERO} removes it.
     */
    public void setReadLatency(Duration delay) {
        if (delay.isNegative()) {
            throw new IllegalArgumentException("Injected read latency must not be negative, got " + delay);
        }
        this.readLatency = delay;
    }

    /** Makes every call fail as if the store refused the connection, until {@link #heal()}. */
    public void refuseConnections() {
        synchronized (lock) {
            refusing = true;
        }
    }

    /** Makes every call block until {@link #release()} or {@link #heal()}. */
    public void hang() {
        synchronized (lock) {
            hanging = true;
        }
    }

    /** Lets the calls blocked by {@link #hang()} continue, and stops blocking new ones. */
    public void release() {
        synchronized (lock) {
            hanging = false;
            hangGeneration++;
            lock.notifyAll();
        }
    }

    /** The next {@code n} calls pass; every call after that fails until {@link #heal()}. */
    public void failAfter(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("failAfter needs a count >= 0, got " + n);
        }
        synchronized (lock) {
            passesLeft = n;
        }
    }

    /** Removes every fault (latency, read latency, refusal, hang, failAfter) and releases hung calls. */
    public void heal() {
        latency = Duration.ZERO;
        readLatency = Duration.ZERO;
        synchronized (lock) {
            refusing = false;
            passesLeft = -1;
            hanging = false;
            hangGeneration++;
            lock.notifyAll();
        }
    }

    /** Calls currently blocked by {@link #hang()}. */
    public int blockedCalls() {
        synchronized (lock) {
            return blocked;
        }
    }

    /** Calls made so far (every operation except {@link #describe()}), whether they passed or failed. */
    public long calls() {
        return calls.get();
    }

    @Override
    public void put(String path, byte[] data) {
        call("put", path, () -> {
            delegate.put(path, data);
            return null;
        });
    }

    /** Streams {@code content} to the delegate; faulted and counted as {@link #put(String, byte[])}. */
    @Override
    public void put(String path, BlobContent content) {
        call("put", path, () -> {
            delegate.put(path, content);
            return null;
        });
    }

    /** Reads ({@link #get}s and {@link #openRead}s) made so far. */
    public long reads() {
        return reads.get();
    }

    /** Reads ({@link #get}s, {@link #openRead}s) running now. */
    public int readsInFlight() {
        return readsInFlight.get();
    }

    /** The most reads ({@link #get}s, {@link #openRead}s) that ran at once since creation or {@link #resetMaxReadsInFlight()}. */
    public int maxReadsInFlight() {
        return maxReadsInFlight.get();
    }

    public void resetMaxReadsInFlight() {
        maxReadsInFlight.set(readsInFlight.get());
    }

    @Override
    public byte[] get(String path) {
        return read(path, () -> delegate.get(path));
    }

    /** Opens the delegate's stream; faulted and counted as a {@link #get} (the opening, not the reading). */
    @Override
    public InputStream openRead(String path) {
        return read(path, () -> delegate.openRead(path));
    }

    private <T> T read(String path, Supplier<T> action) {
        reads.incrementAndGet();
        maxReadsInFlight.accumulateAndGet(readsInFlight.incrementAndGet(), Math::max);
        try {
            return call("get", path, () -> {
                sleep(readLatency, "get", path, "call interrupted while delayed by injected read latency");
                return action.get();
            });
        } finally {
            readsInFlight.decrementAndGet();
        }
    }

    @Override
    public boolean exists(String path) {
        return call("exists", path, () -> delegate.exists(path));
    }

    @Override
    public List<String> list(String prefix) {
        return call("list", prefix, () -> delegate.list(prefix));
    }

    @Override
    public void delete(String path) {
        call("delete", path, () -> {
            delegate.delete(path);
            return null;
        });
    }

    @Override
    public void deleteRecursively(String prefix) {
        call("deleteRecursively", prefix, () -> {
            delegate.deleteRecursively(prefix);
            return null;
        });
    }

    @Override
    public int discardUnfinishedWrites(String prefix, java.util.function.Predicate<String> which) {
        return call("discardUnfinishedWrites", prefix, () -> delegate.discardUnfinishedWrites(prefix, which));
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    @Override
    public String role() {
        return delegate.role();
    }

    private <T> T call(String op, String path, Supplier<T> action) {
        calls.incrementAndGet();
        injectLatency(op, path);
        synchronized (lock) {
            awaitNotHanging(op, path);
            if (refusing) {
                ConnectException cause = new ConnectException("Connection refused");
                throw new StorageException(StorageException.message(delegate.role(), delegate.describe(),
                        "unreachable (Connection refused)", op, path), cause);
            }
            if (passesLeft == 0) {
                throw new StorageException(StorageException.message(delegate.role(), delegate.describe(),
                        "failed (injected failure, failAfter exhausted)", op, path));
            }
            if (passesLeft > 0) {
                passesLeft--;
            }
        }
        return action.get();
    }

    private void injectLatency(String op, String path) {
        sleep(latency, op, path, "call interrupted while delayed by injected latency");
    }

    private void sleep(Duration d, String op, String path, String interruptedProblem) {
        if (d.isZero()) {
            return;
        }
        try {
            Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(StorageException.message(delegate.role(), delegate.describe(), interruptedProblem, op, path), e);
        }
    }

    // Called with lock held.
    private void awaitNotHanging(String op, String path) {
        long generation = hangGeneration;
        if (!hanging) {
            return;
        }
        blocked++;
        try {
            while (hanging && generation == hangGeneration) {
                lock.wait();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(StorageException.message(delegate.role(), delegate.describe(),
                    "call interrupted while the store hung (no answer)", op, path), e);
        } finally {
            blocked--;
        }
    }
}
