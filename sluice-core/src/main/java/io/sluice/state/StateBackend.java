package io.sluice.state;

/**
 * One kind of keyed state storage in one task executor: creates the {@link KeyedStateBackend} of each
 * task and owns what those share (for RocksDB, the native memory budget of each slot). Created by
 * its {@link StateBackendFactory} once per task executor, on first use, and closed with the task
 * executor.
 *
 * <p>Threading: thread-safe; {@link #createKeyedStateBackend} is called from task threads.
 */
public interface StateBackend extends AutoCloseable {
    /** The name it is chosen by ({@code state.backend}). */
    String name();

    /** The keyed state of one task; the task closes it when it ends. */
    KeyedStateBackend createKeyedStateBackend(KeyedStateBackendParameters parameters);

    /** Releases what the backends share; called once no task uses them. Idempotent. */
    @Override
    void close();
}
