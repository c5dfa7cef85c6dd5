package io.sluice.state.rocksdb;

import io.sluice.config.Configuration;

/**
 * How the RocksDB instances of a task executor compact: the size of the table files compactions write,
 * and the numbers of level-0 files at which they are compacted into the level below, and at which writes
 * are slowed down and stopped until compactions catch up. Immutable.
 *
 * @param targetFileSize        {@code state.backend.rocksdb.compaction.target-file-size}
 * @param level0CompactionFiles {@code state.backend.rocksdb.compaction.level0-files}, below the slowdown
 * @param level0SlowdownFiles   {@code state.backend.rocksdb.compaction.level0-slowdown-files}
 * @param level0StopFiles       {@code state.backend.rocksdb.compaction.level0-stop-files}, above the slowdown
 */
record CompactionSettings(long targetFileSize, int level0CompactionFiles, int level0SlowdownFiles,
                          int level0StopFiles) {

    CompactionSettings {
        if (level0SlowdownFiles <= level0CompactionFiles) {
            throw new IllegalArgumentException("state.backend.rocksdb.compaction.level0-slowdown-files ("
                    + level0SlowdownFiles + ") must be above state.backend.rocksdb.compaction.level0-files ("
                    + level0CompactionFiles + "): level-0 files are compacted first, writes slowed down only if that"
                    + " does not keep up; raise the slowdown (and the stop above it) or lower level0-files");
        }
        if (level0StopFiles <= level0SlowdownFiles) {
            throw new IllegalArgumentException("state.backend.rocksdb.compaction.level0-stop-files (" + level0StopFiles
                    + ") must be above state.backend.rocksdb.compaction.level0-slowdown-files (" + level0SlowdownFiles
                    + "): writes are slowed down first, stopped only if that does not let compactions catch up");
        }
    }

    /** The defaults ({@link RocksDbOptions}). */
    static CompactionSettings defaults() {
        return from(new Configuration());
    }

    /** From a task executor's configuration. */
    static CompactionSettings from(Configuration configuration) {
        return new CompactionSettings(configuration.get(RocksDbOptions.TARGET_FILE_SIZE),
                configuration.get(RocksDbOptions.LEVEL0_COMPACTION_FILES),
                configuration.get(RocksDbOptions.LEVEL0_SLOWDOWN_FILES), configuration.get(RocksDbOptions.LEVEL0_STOP_FILES));
    }
}
