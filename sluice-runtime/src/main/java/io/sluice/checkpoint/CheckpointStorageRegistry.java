package io.sluice.checkpoint;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.config.Configuration;
import io.sluice.storage.BlobStore;
import io.sluice.storage.BlobStores;
import io.sluice.storage.InstrumentedBlobStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link CheckpointStorage} per location, shared by the job masters and task executors of a
 * JVM, so that its counters cover every access. Opening a location does no I/O (it only parses
 * the location), so this may be called from a main thread. Thread-safe.
 *
 * <p>Every store is wrapped in an {@link InstrumentedBlobStore} (counts, timings, the main-thread
 * guard). Tests add their own decorator, typically a
 * {@code FaultInjectingBlobStore} (module sluice-testing), between the real store and the instrumentation.
 *
 * <p>The {@link Configuration} given here is passed to {@link BlobStores#open(String, Configuration)}
 * for every location, which is how store settings such as the {@code s3.*} options reach the store
 * (job graphs carry only the location string). {@link #close()} closes the stores that hold
 * resources (for example an S3 client's connection pool).
 */
public final class CheckpointStorageRegistry implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointStorageRegistry.class);

    private final MeterRegistry meterRegistry;
    private final UnaryOperator<BlobStore> decorator;
    private final Configuration configuration;
    private final Map<String, CheckpointStorage> storages = new ConcurrentHashMap<>();
    private final Map<String, BlobStore> rawStores = new ConcurrentHashMap<>();

    public CheckpointStorageRegistry(MeterRegistry meterRegistry) {
        this(meterRegistry, UnaryOperator.identity());
    }

    public CheckpointStorageRegistry(MeterRegistry meterRegistry, UnaryOperator<BlobStore> decorator) {
        this(meterRegistry, decorator, new Configuration());
    }

    /** @param configuration store settings (for example {@code s3.*}); copied, later changes are not seen */
    public CheckpointStorageRegistry(MeterRegistry meterRegistry, UnaryOperator<BlobStore> decorator,
            Configuration configuration) {
        this.meterRegistry = meterRegistry;
        this.decorator = decorator;
        this.configuration = configuration.copy();
    }

    /** The storage for {@code location}; throws IllegalArgumentException for an unsupported location. */
    public CheckpointStorage forLocation(String location) {
        return storages.computeIfAbsent(location, loc -> {
            BlobStore raw = BlobStores.open(loc, configuration);
            rawStores.put(loc, raw);
            return new CheckpointStorage(new InstrumentedBlobStore(decorator.apply(raw), meterRegistry, raw.describe()),
                    meterRegistry, this::forLocation);
        });
    }

    public MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    /** Closes every opened store that is {@link AutoCloseable}; errors are logged. Call when nothing uses them any more. */
    @Override
    public void close() {
        for (Map.Entry<String, BlobStore> e : rawStores.entrySet()) {
            if (e.getValue() instanceof AutoCloseable closeable) {
                try {
                    closeable.close();
                } catch (Exception ex) {
                    LOG.warn("Could not close checkpoint storage {}: {}", e.getKey(), ex.toString());
                }
            }
        }
        rawStores.clear();
        storages.clear();
    }
}
