package io.sluice.state.rocksdb;

import io.sluice.state.KeyedStateMetrics;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;

/**
 * The metrics of a {@link RocksDbKeyedStateBackend}: its slot's native memory budget and use, and
 * RocksDB's live table-file size and estimated entries summed over the states' column families. Each
 * reading enters the instance's guard, and is {@code NaN} once the instance is closing.
 *
 * <p>Threading: any thread.
 */
final class RocksDbStateMetrics implements KeyedStateMetrics {
    private final RocksDbInstance instance;
    private final RocksDbStates states;

    RocksDbStateMetrics(RocksDbInstance instance, RocksDbStates states) {
        this.instance = instance;
        this.states = states;
    }

    @Override
    public double memoryBudgetBytes() {
        return instance.memory().budget();
    }

    @Override
    public double memoryUsageBytes() {
        if (!instance.enter()) {
            return Double.NaN;
        }
        try {
            return instance.memory().usage();
        } finally {
            instance.exit();
        }
    }

    @Override
    public double diskBytes() {
        return sumOfProperty("rocksdb.live-sst-files-size");
    }

    @Override
    public double estimatedEntries() {
        return sumOfProperty("rocksdb.estimate-num-keys");
    }

    private double sumOfProperty(String property) {
        if (!instance.enter()) {
            return Double.NaN;
        }
        try {
            org.rocksdb.RocksDB db = instance.openedDb();
            if (db == null) {
                return 0; // not opened yet: no state
            }
            long sum = 0;
            for (ColumnFamilyHandle c : states.columns()) {
                sum += db.getLongProperty(c, property);
            }
            return sum;
        } catch (RocksDBException e) {
            return Double.NaN;
        } finally {
            instance.exit();
        }
    }
}
