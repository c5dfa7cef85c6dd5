package io.sluice.state.rocksdb;

import io.sluice.config.ConfigOption;
import io.sluice.config.ConfigOptions;

/**
 * The options of the RocksDB state backend ({@code state.backend: rocksdb}), read by each task
 * executor from its configuration. See docs/state.md for how the memory budget is split. Constants
 * only; thread-safe.
 */
public final class RocksDbOptions {
    private RocksDbOptions() {}

    /** 128 MiB: room for the index, filter and a working set of data blocks of a few GB of state per slot. */
    static final long DEFAULT_MEMORY_PER_SLOT = 128L << 20;

    public static final ConfigOption<Long> MEMORY_PER_SLOT = ConfigOptions.key("state.backend.rocksdb.memory.per-slot")
            .memoryType()
            .defaultValue(DEFAULT_MEMORY_PER_SLOT)
            .withConstraint(bytes -> bytes >= (8L << 20), "at least 8 mb")
            .withDescription("The native memory budget of all RocksDB instances of one slot (the keyed state of the"
                    + " tasks a slot runs): one LRU block cache of this size, shared by them, to which their write"
                    + " buffers (memtables) are charged too, and which holds the index and filter blocks. A task"
                    + " manager's RocksDB memory is bounded by slots x this, plus a small overhead (docs/state.md).");

    public static final ConfigOption<Double> WRITE_BUFFER_RATIO = ConfigOptions.key(
                    "state.backend.rocksdb.memory.write-buffer-ratio")
            .doubleType()
            .defaultValue(0.5)
            .withConstraint(r -> r > 0 && r < 1, "between 0 and 1, exclusive")
            .withDescription("The share of state.backend.rocksdb.memory.per-slot that write buffers (memtables) may"
                    + " fill before RocksDB flushes them to disk; the rest caches blocks read from disk.");

    public static final ConfigOption<Double> HIGH_PRIORITY_POOL_RATIO = ConfigOptions.key(
                    "state.backend.rocksdb.memory.high-priority-pool-ratio")
            .doubleType()
            .defaultValue(0.1)
            .withConstraint(r -> r >= 0 && r < 1, "at least 0 and below 1")
            .withDescription("The share of the block cache kept for index and filter blocks, which are evicted last.");

    /** RocksDB's own default (target_file_size_base). */
    static final long DEFAULT_TARGET_FILE_SIZE = 64L << 20;

    public static final ConfigOption<Long> TARGET_FILE_SIZE = ConfigOptions.key(
                    "state.backend.rocksdb.compaction.target-file-size")
            .memoryType()
            .defaultValue(DEFAULT_TARGET_FILE_SIZE)
            .withConstraint(bytes -> bytes >= (16L << 10), "at least 16 kb")
            .withDescription("The size at which compactions split their output into table files (RocksDB's"
                    + " target_file_size_base; the same on every level). An incremental checkpoint uploads the"
                    + " table files that are new since the previous one, so smaller files make a compaction that"
                    + " rewrites part of the key range upload less, at the cost of more files per checkpoint (more"
                    + " uploads, a larger checkpoint metadata). The default, 64 mb, is RocksDB's.");

    /** Above RocksDB's 4: see the option's description. */
    static final int DEFAULT_LEVEL0_COMPACTION_FILES = 12;

    public static final ConfigOption<Integer> LEVEL0_COMPACTION_FILES = ConfigOptions.key(
                    "state.backend.rocksdb.compaction.level0-files")
            .intType()
            .defaultValue(DEFAULT_LEVEL0_COMPACTION_FILES)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("The number of level-0 table files (memtables flushed and not yet compacted) at which"
                    + " RocksDB compacts them into the level below (its level0_file_num_compaction_trigger); below"
                    + " state.backend.rocksdb.compaction.level0-slowdown-files. Each checkpoint flushes the memtables,"
                    + " so level-0 files are about one checkpoint interval of changes each, and every such compaction"
                    + " rewrites the whole level below for them (random keys span it): waiting for more files rewrites"
                    + " that level less often, which an incremental checkpoint then uploads less often. Reads look into"
                    + " each level-0 file's filter. The default, 12, is above RocksDB's 4 (docs/state.md).");

    /** Above RocksDB's 20, twice the compaction trigger: see the option's description. */
    static final int DEFAULT_LEVEL0_SLOWDOWN_FILES = 24;

    public static final ConfigOption<Integer> LEVEL0_SLOWDOWN_FILES = ConfigOptions.key(
                    "state.backend.rocksdb.compaction.level0-slowdown-files")
            .intType()
            .defaultValue(DEFAULT_LEVEL0_SLOWDOWN_FILES)
            .withConstraint(n -> n >= 2, "at least 2")
            .withDescription("The number of level-0 table files (memtables flushed and not yet compacted) at which"
                    + " RocksDB slows writes down until compactions catch up (its level0_slowdown_writes_trigger)."
                    + " Every read of a key looks into each level-0 file, so letting them pile up while a fast"
                    + " phase (a bulk load, a catch-up) outruns compaction makes every later read dearer; a low"
                    + " limit paces the writes instead; above state.backend.rocksdb.compaction.level0-files. The"
                    + " default, 24, is twice that option's default (docs/state.md).");

    public static final ConfigOption<Integer> LEVEL0_STOP_FILES = ConfigOptions.key(
                    "state.backend.rocksdb.compaction.level0-stop-files")
            .intType()
            .defaultValue(2 * DEFAULT_LEVEL0_SLOWDOWN_FILES)
            .withConstraint(n -> n >= 3, "at least 3")
            .withDescription("The number of level-0 table files at which RocksDB stops writes until compactions"
                    + " catch up (its level0_stop_writes_trigger); above"
                    + " state.backend.rocksdb.compaction.level0-slowdown-files. The default, 48, is twice that"
                    + " option's default.");

    /** Four files of one subtask at a time, as many as the pools of other RocksDB-based stream processors. */
    static final int DEFAULT_TRANSFER_THREADS = 4;

    public static final ConfigOption<Integer> TRANSFER_THREADS = ConfigOptions.key(
                    "state.backend.rocksdb.transfer-threads")
            .intType()
            .defaultValue(DEFAULT_TRANSFER_THREADS)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("How many files one subtask's incremental checkpoint uploads, or its restore downloads,"
                    + " at a time (on its own thread and helper threads of the task executor). A checkpoint that"
                    + " carries a compaction's output, or the whole state (the first one after a restore from another"
                    + " job's checkpoint or at another parallelism), is otherwise one file's round trip to the storage"
                    + " after the other; on S3 each file is a request of its own, and each transfer holds one of the"
                    + " location's connections while it runs (s3.max-connections, shared by the task executor's"
                    + " subtasks: keep slots x this below it). 1 transfers one file at a time.");

    public static final ConfigOption<Integer> CHANGELOG_MATERIALIZE_EVERY = ConfigOptions.key(
                    "state.backend.rocksdb.changelog.materialize-every")
            .intType()
            .defaultValue(1)
            .withConstraint(n -> n >= 1, "at least 1")
            .withDescription("With incremental checkpoints: every how many checkpoints one flushes RocksDB and uploads"
                    + " its new table files (a materialisation). The checkpoints in between upload only a changelog of"
                    + " the state's writes since the checkpoint before (and refer to the last materialisation's files),"
                    + " so their upload follows the change and never carries a compaction's output; a restore replays"
                    + " the changelog onto the materialised files, at most this number minus one checkpoints of it."
                    + " The default, 1, materialises every checkpoint (no changelog; docs/state.md).");

    public static final ConfigOption<String> LOCAL_DIR = ConfigOptions.key("state.backend.rocksdb.local-dir")
            .stringType()
            .defaultValue("")
            .withDescription("Where tasks keep their RocksDB files (one directory per task, deleted when the task"
                    + " ends; those of a killed process are deleted by the next RocksDB state opened here). Empty:"
                    + " sluice-rocksdb in the JVM's temporary directory (java.io.tmpdir). Use a local"
                    + " disk with room for the state of every slot.");
}
