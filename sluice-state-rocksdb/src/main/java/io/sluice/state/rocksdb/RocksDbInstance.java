package io.sluice.state.rocksdb;

import io.sluice.state.StateMetaInfo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.ConfigOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.ExportImportFilesMetaData;
import org.rocksdb.ImportColumnFamilyOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Snapshot;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The native side of one {@link RocksDbKeyedStateBackend}: the RocksDB instance in its local directory
 * with its options (block cache and write buffers from the slot's {@link SlotMemory} budget, write-ahead
 * logging off, list merges by string append), the {@link NativeGuard} that keeps it open while other
 * threads use it, and the RocksDB snapshots taken and not yet released. Creating it creates the
 * directory; RocksDB opens on the first use, empty, or with the files a restore downloaded
 * ({@link #replaceWith}). Closing it frees the native resources in reverse order of creation, gives
 * the slot memory back and deletes the local directories.
 *
 * <p>Threading: opened (on first use), replaced and closed on the task thread (the native resources are then freed
 * on the backend's closer thread); {@link #db()} on the task thread, or
 * on another thread between {@link #enter()} and {@link #exit()}; {@link #releaseSnapshot} and
 * {@link #closing()} on any thread.
 */
final class RocksDbInstance {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbInstance.class);

    static {
        RocksDbNativeLibrary.load();
    }

    private final String owner;
    private final Path directory;
    private final SlotMemoryPools pools;
    private final SlotMemory memory;
    private final Executor closer;
    private final NativeGuard guard = new NativeGuard();

    // Native resources, closed in close() in reverse order of creation.
    private final BloomFilter bloomFilter;
    private final StringAppendOperator listMerge;
    private final ColumnFamilyOptions columnOptions;
    private final DBOptions dbOptions;
    /**
     * {@code null} until the first use opens it empty ({@link #db()}) or a restore opens downloaded files
     * ({@link #replaceWith}); replaced only by such a restore (with the guard held exclusively).
     */
    private volatile RocksDB db;
    private ColumnFamilyHandle defaultColumn;
    /** Whether {@link #openEmpty} ran. Task thread. */
    private boolean openedEmpty;
    final WriteOptions writeOptions;
    final ReadOptions readOptions;
    /** Snapshots taken and not yet written or released. Guarded by {@link #guard}. */
    private final Set<Snapshot> openSnapshots = new HashSet<>();

    /**
     * Prepares an instance in {@code directory} for the state of {@code keyGroups} key groups, which compacts as
     * {@code compaction} says: creates the directory and the options; on failure gives {@code memory} back and
     * deletes the directory. RocksDB itself opens on the first use ({@link #db()}), empty, unless a restore opens
     * the restored files first ({@link #replaceWith}): a restored task then never opens, closes and deletes an
     * empty instance on its way to RUNNING (5 ms on an idle disk here, 26-65 ms during a task failover at 4 GB).
     * {@code closer} frees the native resources and deletes the directories once the instance is closed
     * ({@link #close}).
     */
    RocksDbInstance(String owner, Path directory, SlotMemoryPools pools, SlotMemory memory, Executor closer,
                    CompactionSettings compaction, int keyGroups) {
        this.owner = owner;
        this.directory = directory;
        this.pools = pools;
        this.memory = memory;
        this.closer = closer;
        BloomFilter filter = null;
        StringAppendOperator merge = null;
        ColumnFamilyOptions cfOptions = null;
        DBOptions options = null;
        WriteOptions wo = null;
        ReadOptions ro = null;
        try {
            Files.createDirectories(directory);
            filter = new BloomFilter(10, false);
            merge = new StringAppendOperator("");
            cfOptions = columnOptions(memory, filter, merge, compaction, keyGroups);
            options = new DBOptions()
                    .setCreateIfMissing(true)
                    .setWriteBufferManager(memory.writeBuffers())
                    .setInfoLogLevel(InfoLogLevel.HEADER_LEVEL)
                    .setStatsDumpPeriodSec(0)
                    .setAvoidFlushDuringShutdown(true)
                    .setKeepLogFileNum(2);
            wo = new WriteOptions().setDisableWAL(true);
            ro = new ReadOptions();
            this.bloomFilter = filter;
            this.listMerge = merge;
            this.columnOptions = cfOptions;
            this.dbOptions = options;
            this.writeOptions = wo;
            this.readOptions = ro;
        } catch (IOException | RuntimeException e) {
            for (AutoCloseable c : new AutoCloseable[] {ro, wo, options, cfOptions, merge, filter}) {
                closeQuietly(c);
            }
            pools.release(memory);
            deleteDirectory(directory);
            throw new RocksDbStateException("Could not open the RocksDB state of " + owner + " in " + directory + ": "
                    + e.getMessage() + ". Check state.backend.rocksdb.local-dir (room and permissions)", e);
        }
    }

    /** Opens the instance empty: its first use, with no restore before it. Task thread. */
    private RocksDB openEmpty() {
        if (guard.isClosing()) {
            throw new IllegalStateException("The RocksDB state of " + owner + " is closed");
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try {
            db = RocksDB.open(dbOptions, directory.toString(),
                    List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions)), handles);
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not open the RocksDB state of " + owner + " in " + directory + ": "
                    + e.getMessage() + ". Check state.backend.rocksdb.local-dir (room and permissions)", e);
        }
        defaultColumn = handles.get(0);
        openedEmpty = true;
        LOG.debug("Opened RocksDB state of {} in {} (slot {}, budget {} bytes)", owner, directory, memory.slot(),
                memory.budget());
        return db;
    }

    /** The size of each memtable's whole-key bloom filter, as a fraction of the memtable's size. */
    static final double MEMTABLE_FILTER_RATIO = 0.1;

    /**
     * The options of every column family: table format, block cache of the slot, list merges, write buffers,
     * the size of the table files compactions write, the level-0 file counts that start a compaction and that slow
     * and stop writes, and insert hints per key group where {@code keyGroups} of them fit ({@link #insertHints}).
     */
    static ColumnFamilyOptions columnOptions(SlotMemory memory, BloomFilter filter, StringAppendOperator merge,
                                             CompactionSettings compaction, int keyGroups) {
        long writeBufferSize = Math.max(1L << 20, Math.min(64L << 20, memory.writeBufferBytes() / 4));
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setBlockCache(memory.cache())
                .setBlockSize(16 * 1024)
                .setCacheIndexAndFilterBlocks(true)
                .setCacheIndexAndFilterBlocksWithHighPriority(true)
                .setPinL0FilterAndIndexBlocksInCache(false)
                .setFilterPolicy(filter);
        return (insertHints(keyGroups, writeBufferSize) ? withInsertHints() : new ColumnFamilyOptions())
                .setTableFormatConfig(table)
                .setMergeOperator(merge)
                .setWriteBufferSize(writeBufferSize)
                .setTargetFileSizeBase(compaction.targetFileSize())
                .setLevel0FileNumCompactionTrigger(compaction.level0CompactionFiles())
                .setLevel0SlowdownWritesTrigger(compaction.level0SlowdownFiles())
                .setLevel0StopWritesTrigger(compaction.level0StopFiles())
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setLevelCompactionDynamicLevelBytes(true)
                // A bloom filter over each memtable's whole keys (a tenth of its size, from the memtable's own
                // memory, so within the write buffers' share of the budget): a read of a key the memtables do not
                // hold, as every first read of a key is, skips their skip lists (docs/state.md, "Memtable filter").
                .setMemtablePrefixBloomSizeRatio(MEMTABLE_FILTER_RATIO)
                .setMemtableWholeKeyFiltering(true);
    }

    /**
     * The RocksDB option that keeps, per key group, where the memtable's last insert of that group went: a key
     * written after the one before it in its group is then linked in at that place instead of searched for from
     * the top of the skip list. Keys that arrive in ascending order within their key group (counters, sequence
     * numbers, timestamps: every first write of a key in a bulk load of such keys) insert about 1.45 times as fast;
     * random keys as before (docs/state.md, "Memtable insert hints"). RocksJava has no setter for it, so the column
     * options start from RocksDB's own options parser.
     */
    static final String INSERT_HINTS = "memtable_insert_with_hint_prefix_extractor";

    /**
     * What one key group's hint is counted as: 257.5 bytes of its memtable's arena, measured with RocksDB 10.10
     * ({@code InsertHintMemoryTest}, which fails when a hint takes more of the arena than this), plus the entry of the
     * memtable's map from key group to hint, which lives on the native heap outside the arena (not measured; counted
     * as up to 126 bytes).
     */
    static final long HINT_BYTES = 384;

    /**
     * Whether the memtables keep insert hints: only when a hint for each of the instance's {@code keyGroups} takes at
     * most a sixteenth of a memtable of {@code writeBufferSize} bytes. Each hint lives in the memtable's own memory,
     * so with many key groups on one subtask (a max parallelism of 32,768 at parallelism 1: 12 MiB per memtable) and
     * small memtables they would make the memtables flush sooner; at the default max parallelism of 128 they always
     * fit (48 KiB).
     */
    static boolean insertHints(int keyGroups, long writeBufferSize) {
        return keyGroups * HINT_BYTES <= writeBufferSize / 16;
    }

    static ColumnFamilyOptions withInsertHints() {
        Properties hints = new Properties();
        hints.setProperty(INSERT_HINTS, "rocksdb.FixedPrefix." + RocksDbKeys.KEY_GROUP_BYTES);
        try (ConfigOptions parsing = new ConfigOptions().setIgnoreUnknownOptions(false)) {
            ColumnFamilyOptions options = ColumnFamilyOptions.getColumnFamilyOptionsFromProps(parsing, hints);
            if (options == null) {
                throw new IllegalStateException("RocksDB did not accept its option " + INSERT_HINTS + "="
                        + hints.getProperty(INSERT_HINTS) + "; is the rocksdbjni version the one Sluice was built"
                        + " with?");
            }
            return options;
        }
    }

    /**
     * The instance, opened empty by the first call unless a restore opened one. Task thread; another thread only
     * between {@link #enter()} and {@link #exit()} and once the instance is open (it took a snapshot, or has states).
     */
    RocksDB db() {
        RocksDB d = db;
        return d != null ? d : openEmpty();
    }

    /** Whether RocksDB was opened empty ({@link #db()} before any restore). For tests. */
    boolean openedEmpty() {
        return openedEmpty;
    }

    /** The instance if it is open, else {@code null}: for threads other than the task's (metrics). */
    RocksDB openedDb() {
        return db;
    }

    ColumnFamilyHandle defaultColumn() {
        db();
        return defaultColumn;
    }

    String owner() {
        return owner;
    }

    Path directory() {
        return directory;
    }

    SlotMemory memory() {
        return memory;
    }

    /** Where local checkpoints are made: beside the instance's directory, on the same file system (hard links). */
    Path snapshotsDirectory() {
        return directory.resolveSibling(directory.getFileName() + ".snapshots");
    }

    /** Creates the column family of a new state. Task thread. */
    ColumnFamilyHandle createColumn(String stateName) {
        try {
            return db().createColumnFamily(new ColumnFamilyDescriptor(stateName.getBytes(StandardCharsets.UTF_8),
                    columnOptions));
        } catch (RocksDBException e) {
            throw failure("create the column family of state '" + stateName + "'", e);
        }
    }

    /** The default column family, then one per state of {@code states}, with this instance's options. */
    private List<ColumnFamilyDescriptor> descriptors(List<StateMetaInfo> states) {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions));
        for (StateMetaInfo info : states) {
            descriptors.add(new ColumnFamilyDescriptor(info.name().getBytes(StandardCharsets.UTF_8), columnOptions));
        }
        return descriptors;
    }

    /**
     * Opens the RocksDB files at {@code files} (a local checkpoint or a download) read-only with the
     * column families of {@code states}; their handles, the default column family's first, are added
     * to {@code handles}, to be closed by the caller before the returned instance.
     */
    RocksDB openReadOnly(Path files, List<StateMetaInfo> states, List<ColumnFamilyHandle> handles)
            throws RocksDBException {
        return RocksDB.openReadOnly(dbOptions, files.toString(), descriptors(states), handles);
    }

    /**
     * Opens the downloaded RocksDB files at {@code files} for writing, with compactions off (nothing is
     * rewritten while its files are exported); column family handles as {@link #openReadOnly}. The caller
     * closes {@code compactionsOff}, its handles and the instance, in reverse order.
     */
    RocksDB openForExport(Path files, List<StateMetaInfo> states, ColumnFamilyOptions compactionsOff,
                          List<ColumnFamilyHandle> handles) throws RocksDBException {
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        for (ColumnFamilyDescriptor d : descriptors(states)) {
            descriptors.add(new ColumnFamilyDescriptor(d.getName(), compactionsOff));
        }
        return RocksDB.open(dbOptions, files.toString(), descriptors, handles);
    }

    /** Options for {@link #openForExport}: this instance's column options with automatic compactions off. */
    ColumnFamilyOptions compactionsOffOptions() {
        return new ColumnFamilyOptions(columnOptions).setDisableAutoCompactions(true);
    }

    /**
     * Creates the column family of state {@code stateName} from exported table files (their key ranges
     * must not overlap); RocksDB moves the files into this instance. Task thread, during a restore.
     */
    ColumnFamilyHandle importColumn(String stateName, List<ExportImportFilesMetaData> exports) {
        try (ImportColumnFamilyOptions options = new ImportColumnFamilyOptions().setMoveFiles(true)) {
            return db().createColumnFamilyWithImport(new ColumnFamilyDescriptor(
                    stateName.getBytes(StandardCharsets.UTF_8), columnOptions), options, exports);
        } catch (RocksDBException e) {
            throw failure("import the table files of state '" + stateName + "'", e);
        }
    }

    /**
     * Replaces the (empty) instance by the downloaded one at {@code downloaded}, with no other thread
     * inside: closes it if it was opened, moves the files into this instance's directory, opens them with
     * the column families of {@code states} and gives their handles (in that order) to {@code adopt}.
     */
    void replaceWith(Path downloaded, List<StateMetaInfo> states, Consumer<List<ColumnFamilyHandle>> adopt) {
        guard.exclusively(() -> {
            if (db != null) {
                defaultColumn.close();
                try {
                    db.closeE();
                } catch (RocksDBException e) {
                    throw failure("close the empty instance before a restore", e);
                }
                db = null;
            }
            deleteDirectory(directory);
            try {
                Files.move(downloaded, directory);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not move the downloaded RocksDB files " + downloaded + " to "
                        + directory + ": " + e.getMessage(), e);
            }
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try {
                db = RocksDB.open(dbOptions, directory.toString(), descriptors(states), handles);
            } catch (RocksDBException e) {
                throw failure("open the restored instance", e);
            }
            defaultColumn = handles.get(0);
            adopt.accept(handles.subList(1, handles.size()));
        });
    }

    // ------------------------------------------------------------------ use from other threads

    /** Lets another thread use the instance; {@code false} once it is closing. Any thread. */
    boolean enter() {
        return guard.tryEnter();
    }

    void exit() {
        guard.exit();
    }

    /** Whether a long-running user (a snapshot writer) should stop: the instance is closing. Any thread. */
    boolean closing() {
        return guard.isClosing();
    }

    /** Takes a RocksDB snapshot (a sequence number: instant, nothing copied), open until released. Task thread. */
    Snapshot takeSnapshot() {
        Snapshot snapshot = db().getSnapshot();
        synchronized (guard) {
            openSnapshots.add(snapshot);
        }
        return snapshot;
    }

    /** Releases a snapshot once written (or never to be written). Any thread; idempotent. */
    void releaseSnapshot(Snapshot snapshot) {
        synchronized (guard) {
            if (openSnapshots.remove(snapshot)) {
                db.releaseSnapshot(snapshot);
            }
        }
    }

    // ------------------------------------------------------------------ close

    /**
     * Waits for the other threads inside to leave (a snapshot writer stops with an error) and releases
     * the open snapshots; then hands the rest to the closer: close {@code stateColumns} and the instance,
     * free the options, give the slot memory back and delete the local directories. Task thread, once.
     *
     * <p>Why the rest runs on the closer: a failing task closes its state before it reports the failure,
     * and the job's restart waits for that report. Closing RocksDB, freeing a slot's block cache and
     * deleting gigabytes of local files took about 60 ms of a 150 ms task failover at 4 GB. Nothing
     * uses the instance once the guard is closed, and its slot memory stays counted (and shared by the
     * slot's next backend) until the closer gives it back, so the slot's budget still holds. If the
     * closer refuses (it was shut down), the task thread does it.
     */
    void close(List<ColumnFamilyHandle> stateColumns) {
        guard.closeAndAwait();
        synchronized (guard) {
            for (Snapshot s : openSnapshots) {
                db.releaseSnapshot(s);
            }
            openSnapshots.clear();
        }
        List<ColumnFamilyHandle> columns = List.copyOf(stateColumns);
        Runnable free = () -> freeNative(columns);
        try {
            closer.execute(free);
        } catch (RejectedExecutionException e) {
            free.run();
        }
    }

    private void freeNative(List<ColumnFamilyHandle> stateColumns) {
        long started = System.nanoTime();
        for (ColumnFamilyHandle column : stateColumns) {
            column.close();
        }
        RocksDB opened = db;
        if (opened != null) {
            defaultColumn.close();
            try {
                opened.closeE();
            } catch (RocksDBException e) {
                LOG.warn("Closing the RocksDB state of {} reported: {}", owner, e.getMessage());
            }
        }
        for (AutoCloseable c : new AutoCloseable[] {readOptions, writeOptions, dbOptions, columnOptions, listMerge,
                bloomFilter}) {
            closeQuietly(c);
        }
        pools.release(memory);
        deleteDirectory(directory);
        deleteDirectory(snapshotsDirectory());
        LOG.debug("Freed the RocksDB state of {} in {} ms", owner, (System.nanoTime() - started) / 1_000_000);
    }

    RocksDbStateException failure(String what, RocksDBException e) {
        return new RocksDbStateException("RocksDB could not " + what + " for " + owner + " (" + directory + "): "
                + e.getMessage(), e);
    }

    private static void closeQuietly(AutoCloseable c) {
        if (c == null) {
            return;
        }
        try {
            c.close();
        } catch (Exception e) {
            LOG.debug("Closing {} failed", c, e);
        }
    }

    static void deleteDirectory(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            LOG.warn("Could not delete the local RocksDB directory {}: {}", dir, e.toString());
        }
    }
}
