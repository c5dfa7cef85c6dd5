package io.sluice.state.rocksdb;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

/**
 * What a memtable insert hint takes of its memtable's memory, measured with RocksDB itself: one key written into each
 * of many key groups of a memtable with hints and of one without; the difference of the memtables' sizes, per key
 * group, is what {@link RocksDbInstance#insertHints} counts as {@link RocksDbInstance#HINT_BYTES}. A RocksDB release
 * whose hints grew would make that rule keep hints that do not fit its sixteenth of a memtable.
 */
class InsertHintMemoryTest {
    private static final int KEY_GROUPS = 8192;
    private static final long WRITE_BUFFER = 64L << 20;
    /** What {@link RocksDbInstance#HINT_BYTES} allows for a hint's entry in the memtable's map (native heap). */
    private static final long MAP_ENTRY_BYTES = 126;

    @TempDir
    Path dir;

    @Test
    void aHintTakesAtMostWhatTheRuleCountsForIt() throws Exception {
        RocksDbNativeLibrary.load();
        long with;
        try (ColumnFamilyOptions hints = RocksDbInstance.withInsertHints()) {
            with = memtableBytesAfterOneKeyPerGroup(hints, dir.resolve("with"));
        }
        long without;
        try (ColumnFamilyOptions plain = new ColumnFamilyOptions()) {
            without = memtableBytesAfterOneKeyPerGroup(plain, dir.resolve("without"));
        }
        double perHint = (with - without) / (double) KEY_GROUPS;
        System.out.printf("memtable after one key in each of %d key groups: %d bytes with insert hints, %d without:"
                + " %.1f bytes per hint (counted as %d)%n", KEY_GROUPS, with, without, perHint,
                RocksDbInstance.HINT_BYTES);

        assertThat(perHint).as("the hints were made (the option took effect)").isGreaterThan(64);
        assertThat(perHint).as("bytes per hint in the arena, with the map's entry").isLessThanOrEqualTo(
                RocksDbInstance.HINT_BYTES - MAP_ENTRY_BYTES);
    }

    private static long memtableBytesAfterOneKeyPerGroup(ColumnFamilyOptions column, Path path) throws Exception {
        column.setWriteBufferSize(WRITE_BUFFER);
        try (DBOptions db = new DBOptions().setCreateIfMissing(true);
             org.rocksdb.Options options = new org.rocksdb.Options(db, column);
             RocksDB rocks = RocksDB.open(options, path.toString());
             WriteOptions write = new WriteOptions().setDisableWAL(true)) {
            byte[] value = new byte[8];
            for (int group = 0; group < KEY_GROUPS; group++) {
                byte[] key = ByteBuffer.allocate(RocksDbKeys.KEY_GROUP_BYTES + Long.BYTES).putShort((short) group)
                        .putLong(group).array();
                rocks.put(write, key, value);
            }
            return rocks.getLongProperty("rocksdb.cur-size-active-mem-table");
        }
    }
}
