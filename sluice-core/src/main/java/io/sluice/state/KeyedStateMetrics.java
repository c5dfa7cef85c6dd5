package io.sluice.state;

/**
 * What a keyed state backend reports for metrics. Read from any thread, racily (a scrape may see
 * a slightly stale figure); never blocks. {@link Double#NaN} where a figure does not apply (a heap
 * backend has no native memory budget).
 */
public interface KeyedStateMetrics {
    /** Figures of a backend that reports none. */
    KeyedStateMetrics NONE = new KeyedStateMetrics() {
    };

    /** The native memory budget of the slot whose memory this backend uses, in bytes. */
    default double memoryBudgetBytes() {
        return Double.NaN;
    }

    /**
     * The native memory the slot's state uses now, in bytes, out of {@link #memoryBudgetBytes()}: for
     * RocksDB, its block cache with the write buffers charged to it. Shared by the backends of one slot.
     */
    default double memoryUsageBytes() {
        return Double.NaN;
    }

    /** This backend's state on local disk, in bytes (live files). */
    default double diskBytes() {
        return Double.NaN;
    }

    /** An estimate of the entries this backend holds (keys, plus map entries of map states). */
    default double estimatedEntries() {
        return Double.NaN;
    }
}
