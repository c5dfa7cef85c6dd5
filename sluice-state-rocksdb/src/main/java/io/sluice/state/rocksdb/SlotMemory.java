package io.sluice.state.rocksdb;

import org.rocksdb.LRUCache;
import org.rocksdb.WriteBufferManager;

/**
 * The native memory budget of one slot: one LRU block cache of {@code budget} bytes, shared by every
 * RocksDB instance of the slot, and one write buffer manager that charges their memtables to that
 * cache and has them flushed once they fill {@code writeBufferRatio} of it. Index and filter blocks
 * live in the cache too (with high priority), so that blocks, memtables, indexes and filters are all
 * counted against the one budget; what RocksDB allocates beyond it (iterators' pinned blocks, table
 * readers' small structures, compaction buffers) is a small overhead, see docs/state.md.
 *
 * <p>Created and closed by {@link SlotMemoryPools}, which counts the backends using it.
 *
 * <p>Threading: the native objects are thread-safe; {@link #close} only after every RocksDB instance
 * using them was closed.
 */
final class SlotMemory implements AutoCloseable {
    static {
        RocksDbNativeLibrary.load();
    }

    private final String slot;
    private final long budget;
    private final LRUCache cache;
    private final WriteBufferManager writeBuffers;
    private final long writeBufferBytes;

    SlotMemory(String slot, long budget, double writeBufferRatio, double highPriorityPoolRatio) {
        this.slot = slot;
        this.budget = budget;
        this.writeBufferBytes = (long) (budget * writeBufferRatio);
        // Not strict: a strict cache fails reads and writes once pinned blocks fill it, which a job cannot handle.
        this.cache = new LRUCache(budget, -1, false, highPriorityPoolRatio);
        this.writeBuffers = new WriteBufferManager(writeBufferBytes, cache);
    }

    String slot() {
        return slot;
    }

    long budget() {
        return budget;
    }

    /** The bytes the write buffers of the slot may fill before they are flushed. */
    long writeBufferBytes() {
        return writeBufferBytes;
    }

    LRUCache cache() {
        return cache;
    }

    WriteBufferManager writeBuffers() {
        return writeBuffers;
    }

    /** The cache's usage: cached blocks, index and filter blocks and the memtables charged to it. */
    long usage() {
        return cache.getUsage();
    }

    @Override
    public void close() {
        writeBuffers.close();
        cache.close();
    }
}
