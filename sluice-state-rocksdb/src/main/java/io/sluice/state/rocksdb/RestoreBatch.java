package io.sluice.state.rocksdb;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The writes of a restore into a {@link RocksDbInstance}, written to RocksDB every
 * {@value #RESTORE_BATCH_BYTES} bytes and by {@link #flush}.
 *
 * <p>Threading: task thread only.
 */
final class RestoreBatch implements AutoCloseable {
    /** A restore writes its batches to RocksDB at about this size. */
    private static final long RESTORE_BATCH_BYTES = 4L << 20;

    private final RocksDbInstance instance;
    private final WriteBatch batch = new WriteBatch();

    RestoreBatch(RocksDbInstance instance) {
        this.instance = instance;
    }

    void put(ColumnFamilyHandle column, byte[] key, byte[] value) {
        try {
            batch.put(column, key, value);
            if (batch.getDataSize() >= RESTORE_BATCH_BYTES) {
                flush();
            }
        } catch (RocksDBException e) {
            throw instance.failure("write restored state", e);
        }
    }

    void flush() {
        try {
            if (batch.count() > 0) {
                instance.db().write(instance.writeOptions, batch);
                batch.clear();
            }
        } catch (RocksDBException e) {
            throw instance.failure("write restored state", e);
        }
    }

    @Override
    public void close() {
        batch.close();
    }
}
