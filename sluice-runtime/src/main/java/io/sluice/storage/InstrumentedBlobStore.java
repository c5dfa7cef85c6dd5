package io.sluice.storage;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.sluice.rpc.MainThreads;
import java.io.InputStream;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Wraps a {@link BlobStore} to enforce the main-thread rule and to count and time every call.
 *
 * <p>Before each call it runs {@link MainThreads#checkNotMainThread(String)}, so that with the
 * guard on, storage I/O from a component main thread fails with
 * {@link io.sluice.rpc.MainThreadViolationException} (such a rejected call is not counted, since
 * it never reached the store). Each call that reaches the delegate is counted in
 * {@code sluice.storage.requests} (tags {@code store}, {@code operation}, {@code outcome=success|failure})
 * and timed in {@code sluice.storage.latency} (tags {@code store}, {@code operation}; with a
 * percentile histogram from 1 ms to 5 min). The same counts are
 * available cheaply through {@link #count(BlobOp)} and {@link #failures(BlobOp)}, which work even
 * with a registry that drops meters.
 *
 * <p>Threading: thread-safe; blocking exactly as much as the delegate, so never call it from a
 * main thread.
 */
public final class InstrumentedBlobStore implements BlobStore {
    public static final String REQUESTS_METRIC = "sluice.storage.requests";
    public static final String LATENCY_METRIC = "sluice.storage.latency";

    private final BlobStore delegate;
    private final Map<BlobOp, OpMeters> meters = new EnumMap<>(BlobOp.class);

    public InstrumentedBlobStore(BlobStore delegate, MeterRegistry registry, String storeName) {
        this.delegate = delegate;
        for (BlobOp op : BlobOp.values()) {
            meters.put(op, new OpMeters(registry, storeName, op));
        }
    }

    /** Calls of {@code op} that reached the delegate, successful or not. */
    public long count(BlobOp op) {
        OpMeters m = meters.get(op);
        return m.successes.sum() + m.failures.sum();
    }

    /** Calls of {@code op} that reached the delegate and threw. */
    public long failures(BlobOp op) {
        return meters.get(op).failures.sum();
    }

    @Override
    public void put(String path, byte[] data) {
        call(BlobOp.PUT, path, () -> {
            delegate.put(path, data);
            return null;
        });
    }

    /** Counted and timed as a {@link BlobOp#PUT}, like {@link #put(String, byte[])}: the whole streaming write. */
    @Override
    public void put(String path, BlobContent content) {
        call(BlobOp.PUT, path, () -> {
            delegate.put(path, content);
            return null;
        });
    }

    /** Counted and timed as a {@link BlobOp#PUT}, like {@link #put(String, byte[])}. */
    @Override
    public void putFile(String path, java.nio.file.Path file) {
        call(BlobOp.PUT, path, () -> {
            delegate.putFile(path, file);
            return null;
        });
    }

    @Override
    public byte[] get(String path) {
        return call(BlobOp.GET, path, () -> delegate.get(path));
    }

    /**
     * Counted and timed as a {@link BlobOp#GET}: the opening only (a failure to open is a failed get); reading
     * the stream afterwards is neither timed nor counted.
     */
    @Override
    public InputStream openRead(String path) {
        return call(BlobOp.GET, path, () -> delegate.openRead(path));
    }

    @Override
    public java.util.Optional<java.nio.file.Path> localFile(String path) {
        return delegate.localFile(path);
    }

    @Override
    public java.util.Optional<ObjectAddress> objectAddress(String path) {
        return delegate.objectAddress(path);
    }

    /** Counted and timed as a {@link BlobOp#PUT} of {@code path} (the server reads the source). */
    @Override
    public long copyObject(ObjectAddress source, String path) {
        return call(BlobOp.PUT, path, () -> delegate.copyObject(source, path));
    }

    @Override
    public boolean exists(String path) {
        return call(BlobOp.EXISTS, path, () -> delegate.exists(path));
    }

    @Override
    public List<String> list(String prefix) {
        return call(BlobOp.LIST, prefix, () -> delegate.list(prefix));
    }

    @Override
    public void delete(String path) {
        call(BlobOp.DELETE, path, () -> {
            delegate.delete(path);
            return null;
        });
    }

    @Override
    public void deleteRecursively(String prefix) {
        call(BlobOp.DELETE, prefix + " (recursively)", () -> {
            delegate.deleteRecursively(prefix);
            return null;
        });
    }

    @Override
    public int discardUnfinishedWrites(String prefix, java.util.function.Predicate<String> which) {
        return call(BlobOp.DELETE, prefix + " (unfinished writes)", () -> delegate.discardUnfinishedWrites(prefix,
                which));
    }

    @Override
    public String describe() {
        return delegate.describe();
    }

    private <T> T call(BlobOp op, String path, Supplier<T> action) {
        MainThreads.checkNotMainThread("storage " + op.tagValue() + " " + path);
        OpMeters m = meters.get(op);
        long start = System.nanoTime();
        boolean ok = false;
        try {
            T result = action.get();
            ok = true;
            return result;
        } finally {
            m.latency.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
            if (ok) {
                m.successes.increment();
                m.successCounter.increment();
            } else {
                m.failures.increment();
                m.failureCounter.increment();
            }
        }
    }

    /** The meters of one operation kind. */
    private static final class OpMeters {
        final LongAdder successes = new LongAdder();
        final LongAdder failures = new LongAdder();
        final Counter successCounter;
        final Counter failureCounter;
        final Timer latency;

        OpMeters(MeterRegistry registry, String store, BlobOp op) {
            successCounter = Counter.builder(REQUESTS_METRIC).description("Blob store calls")
                    .tag("store", store).tag(io.sluice.metrics.MetricNames.TAG_OPERATION, op.tagValue()).tag("outcome", "success").register(registry);
            failureCounter = Counter.builder(REQUESTS_METRIC).description("Blob store calls")
                    .tag("store", store).tag(io.sluice.metrics.MetricNames.TAG_OPERATION, op.tagValue()).tag("outcome", "failure").register(registry);
            latency = Timer.builder(LATENCY_METRIC).description("Blob store call latency")
                    .tag("store", store).tag(io.sluice.metrics.MetricNames.TAG_OPERATION, op.tagValue())
                    .publishPercentileHistogram().minimumExpectedValue(java.time.Duration.ofMillis(1))
                    .maximumExpectedValue(java.time.Duration.ofMinutes(5)).register(registry);
        }
    }
}
