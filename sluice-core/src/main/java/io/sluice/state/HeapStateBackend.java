package io.sluice.state;

import io.sluice.config.Configuration;

/**
 * Keyed state on the Java heap ({@code state.backend: heap}, the default): a
 * {@link HeapKeyedStateBackend} per task, sharing nothing. Stateless and thread-safe.
 */
public final class HeapStateBackend implements StateBackend {
    public static final String NAME = "heap";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public KeyedStateBackend createKeyedStateBackend(KeyedStateBackendParameters p) {
        return new HeapKeyedStateBackend(p.range(), p.maxParallelism(), p.keySerializer(), p.clock(), p.owner());
    }

    @Override
    public void close() {
    }

    /** Registers {@link HeapStateBackend} as {@code heap}. */
    public static final class Factory implements StateBackendFactory {
        @Override
        public String name() {
            return NAME;
        }

        @Override
        public StateBackend create(Configuration configuration) {
            return new HeapStateBackend();
        }
    }
}
