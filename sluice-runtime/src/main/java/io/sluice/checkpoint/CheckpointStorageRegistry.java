package io.sluice.checkpoint;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.storage.BlobStore;
import io.sluice.storage.BlobStores;
import io.sluice.storage.InstrumentedBlobStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;

/**
 * One {@link CheckpointStorage} per location, shared by the job masters and task executors of a
 * JVM, so that its counters cover every access. Opening a location does no I/O (it only parses
 * the location), so this may be called from a main thread. Thread-safe.
 *
 * <p>Every store is wrapped in an {@link InstrumentedBlobStore} (counts, timings, the main-thread
 * guard). Tests add their own decorator, typically a
 * {@link io.sluice.storage.FaultInjectingBlobStore}, between the real store and the instrumentation.
 */
public final class CheckpointStorageRegistry {
    private final MeterRegistry meterRegistry;
    private final UnaryOperator<BlobStore> decorator;
    private final Map<String, CheckpointStorage> storages = new ConcurrentHashMap<>();

    public CheckpointStorageRegistry(MeterRegistry meterRegistry) {
        this(meterRegistry, UnaryOperator.identity());
    }

    public CheckpointStorageRegistry(MeterRegistry meterRegistry, UnaryOperator<BlobStore> decorator) {
        this.meterRegistry = meterRegistry;
        this.decorator = decorator;
    }

    /** The storage for {@code location}; throws IllegalArgumentException for an unsupported location. */
    public CheckpointStorage forLocation(String location) {
        return storages.computeIfAbsent(location, loc -> {
            BlobStore raw = BlobStores.open(loc);
            return new CheckpointStorage(new InstrumentedBlobStore(decorator.apply(raw), meterRegistry, raw.describe()),
                    meterRegistry);
        });
    }

    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }
}
