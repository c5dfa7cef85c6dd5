package io.sluice.state.rocksdb;

import io.sluice.config.Configuration;
import io.sluice.core.serialization.Serializers;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.util.ManualClock;
import java.nio.file.Path;

/**
 * RocksDB keyed state backends for tests: one {@link RocksDbStateBackend} for the test JVM (a small
 * per-slot budget, directories under {@code target/rocksdb-tests}), each backend in a slot of its own.
 */
public final class RocksDbTestBackends {
    static final Path LOCAL_DIR = Path.of("target", "rocksdb-tests").toAbsolutePath();
    private static final RocksDbStateBackend BACKEND = new RocksDbStateBackend(new Configuration()
            .set(RocksDbOptions.MEMORY_PER_SLOT, 32L << 20)
            .set(RocksDbOptions.LOCAL_DIR, LOCAL_DIR.toString()));
    private static int slots;

    private RocksDbTestBackends() {}

    /** A new backend with the dynamic key serializer, in a slot of its own. */
    public static KeyedStateBackend create(KeyGroupRange range, int maxParallelism) {
        return create(range, maxParallelism, new ManualClock(0));
    }

    /** A new backend whose processing time (state time-to-live) is {@code clock}. */
    public static synchronized KeyedStateBackend create(KeyGroupRange range, int maxParallelism, io.sluice.util.Clock clock) {
        return BACKEND.createKeyedStateBackend(new KeyedStateBackendParameters("test task " + slots,
                "test-slot-" + slots++, range, maxParallelism, Serializers.dynamic(), clock));
    }
}
