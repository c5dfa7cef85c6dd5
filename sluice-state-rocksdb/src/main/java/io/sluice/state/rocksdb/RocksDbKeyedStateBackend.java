package io.sluice.state.rocksdb;

import io.sluice.api.errors.StateKindConflictException;
import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.StateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.SerializationException;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedSnapshotReader;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.state.KeyedStateMetrics;
import io.sluice.state.KeyedStateSnapshot;
import io.sluice.state.StateMetaInfo;
import io.sluice.state.StateRegistration;
import io.sluice.util.Clock;
import io.sluice.core.serialization.TimestampedValue;
import io.sluice.state.ttl.TtlCleaner;
import io.sluice.state.ttl.TtlStates;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import io.sluice.state.CheckpointFiles;
import io.sluice.state.IncrementalStateHandle;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.CompressionType;
import org.rocksdb.DBOptions;
import org.rocksdb.InfoLogLevel;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.Snapshot;
import org.rocksdb.StringAppendOperator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyed state of one task in an embedded RocksDB instance on local disk, so that it may be far
 * larger than the heap.
 *
 * <p><b>Layout.</b> One column family per registered state (named after the state). Every RocksDB key
 * starts with the key group of the user's key, two bytes, unsigned big-endian, then the key written
 * with the task's key serializer; so a key group's entries are contiguous and in ascending order of
 * groups, and a snapshot, a restore or a rescale handles whole ranges. A value state stores the
 * value under that key; a list state the concatenated elements (adds are RocksDB merges with an
 * empty-delimiter string-append operator, so an add reads nothing); a map state one RocksDB entry
 * per map entry, the map key's bytes appended to the key, so a map entry is read and written alone.
 * Keys and map keys must serialize deterministically (equal keys, equal bytes), which every built-in
 * serializer does (not the dynamic serializer for a {@code HashMap} or {@code HashSet} key).
 *
 * <p><b>Values are copies.</b> Every read deserializes a new object: changing what {@code value()}
 * returned changes nothing until {@code update} is called (on the heap a value object is shared with
 * the state). Code that follows the {@code v = state.value(); v.change(); state.update(v)} idiom, as
 * every Sluice operator does, behaves the same on both.
 *
 * <p><b>Memory.</b> The block cache and write buffers of every instance of one slot come out of the
 * slot's budget ({@link SlotMemory}); write-ahead logging is off (a task's state is recovered from
 * its checkpoint, never from local files), and the local directory is deleted when the backend
 * closes.
 *
 * <p><b>Snapshots</b> are full and in the canonical format ({@link RocksDbFullSnapshot}): a RocksDB
 * snapshot taken on the task thread (instant), iterated key group by key group on the I/O thread
 * while the task goes on.
 *
 * <p>Threading: the task thread only, except {@link KeyedStateSnapshot#writeTo} of a snapshot it
 * took and {@link #metrics()}, which enter the {@link NativeGuard}; {@link #close} waits for them.
 */
public final class RocksDbKeyedStateBackend implements KeyedStateBackend {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbKeyedStateBackend.class);
    /** The bytes of the key-group prefix of every RocksDB key; max parallelism is at most 2^15. */
    static final int KEY_GROUP_BYTES = 2;
    /** A restore writes its batches to RocksDB at about this size. */
    private static final long RESTORE_BATCH_BYTES = 4L << 20;

    static {
        RocksDB.loadLibrary();
    }

    private final String owner;
    private final KeyGroupRange range;
    private final int maxParallelism;
    private final TypeSerializer<Object> keySerializer;
    private final Clock clock;
    private final Path directory;
    private final SlotMemoryPools pools;
    private final SlotMemory memory;
    private final NativeGuard guard = new NativeGuard();
    private final TtlCleaner ttlCleaner;

    // Native resources, closed in close() in reverse order of creation.
    private final BloomFilter bloomFilter;
    private final StringAppendOperator listMerge;
    private final ColumnFamilyOptions columnOptions;
    private final DBOptions dbOptions;
    /** Replaced only when a restore adopts a downloaded instance (with the guard held exclusively). */
    private volatile RocksDB db;
    private ColumnFamilyHandle defaultColumn;
    final WriteOptions writeOptions;
    final ReadOptions readOptions;

    /** By name, in registration order (the order snapshots write them in). Task thread. */
    private final Map<String, RocksDbState> states = new LinkedHashMap<>();
    /** The column families of {@link #states}, for metrics threads (copy on write). */
    private volatile List<ColumnFamilyHandle> columns = List.of();
    /** Snapshots taken and not yet written or released. Guarded by {@link #guard}. */
    private final Set<Snapshot> openSnapshots = new HashSet<>();
    private boolean restored;
    private boolean closed;

    // The current key: set by setCurrentKey, read by every state access. Task thread.
    private Object currentKey;
    /** Key-group prefix and serialized current key: the RocksDB key of value and list states. */
    private byte[] currentKeyBytes;
    private final DataOutputBuffer keyBuffer = new DataOutputBuffer(64);
    /** Scratch buffers of the state objects. Task thread. */
    final DataOutputBuffer scratch = new DataOutputBuffer(256);
    final DataInputBuffer input = new DataInputBuffer();

    /** Whether checkpoints upload RocksDB's files incrementally ({@link #checkpointSnapshot}). */
    private final boolean incremental;
    /** Table files of the latest checkpoint this task confirmed: local name to where they are. Task thread. */
    private Map<String, IncrementalStateHandle.StateFile> confirmedUploads = Map.of();
    /** The table files each checkpoint uploaded or referred to, until confirmed or superseded. */
    private final Map<Long, Map<String, IncrementalStateHandle.StateFile>> pendingUploads =
            new java.util.concurrent.ConcurrentHashMap<>();
    /** The newest checkpoint id a snapshot was taken for, -1 before the first. Task thread. */
    private long lastSnapshotId = -1;
    /** Bytes the latest incremental upload sent (new table files and own files), for metrics. */
    private volatile long lastUploadedBytes = -1;

    RocksDbKeyedStateBackend(KeyedStateBackendParameters p, Path directory, SlotMemoryPools pools, SlotMemory memory,
                             boolean incrementalByDefault) {
        this.owner = p.owner();
        this.range = p.range();
        this.maxParallelism = p.maxParallelism();
        @SuppressWarnings("unchecked")
        TypeSerializer<Object> ks = (TypeSerializer<Object>) p.keySerializer();
        this.keySerializer = ks;
        this.clock = p.clock();
        this.incremental = p.incremental() != null ? p.incremental() : incrementalByDefault;
        this.ttlCleaner = new TtlCleaner(clock);
        this.directory = directory;
        this.pools = pools;
        this.memory = memory;
        if (range.size() > 0 && (range.start() < 0 || range.end() >= maxParallelism)) {
            throw new IllegalArgumentException("Key-group range " + range + " is not within [0, " + (maxParallelism - 1)
                    + "], the key groups of max parallelism " + maxParallelism);
        }
        if (maxParallelism > (1 << (8 * KEY_GROUP_BYTES - 1))) {
            throw new IllegalArgumentException("Max parallelism " + maxParallelism + " exceeds the RocksDB backend's"
                    + " limit of " + (1 << (8 * KEY_GROUP_BYTES - 1)));
        }
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
            long writeBufferSize = Math.max(1L << 20, Math.min(64L << 20, memory.writeBufferBytes() / 4));
            BlockBasedTableConfig table = new BlockBasedTableConfig()
                    .setBlockCache(memory.cache())
                    .setBlockSize(16 * 1024)
                    .setCacheIndexAndFilterBlocks(true)
                    .setCacheIndexAndFilterBlocksWithHighPriority(true)
                    .setPinL0FilterAndIndexBlocksInCache(true)
                    .setFilterPolicy(filter);
            cfOptions = new ColumnFamilyOptions()
                    .setTableFormatConfig(table)
                    .setMergeOperator(merge)
                    .setWriteBufferSize(writeBufferSize)
                    .setCompressionType(CompressionType.LZ4_COMPRESSION)
                    .setLevelCompactionDynamicLevelBytes(true);
            options = new DBOptions()
                    .setCreateIfMissing(true)
                    .setWriteBufferManager(memory.writeBuffers())
                    .setInfoLogLevel(InfoLogLevel.HEADER_LEVEL)
                    .setStatsDumpPeriodSec(0)
                    .setAvoidFlushDuringShutdown(true)
                    .setKeepLogFileNum(2);
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            RocksDB opened = RocksDB.open(options, directory.toString(),
                    List.of(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cfOptions)), handles);
            wo = new WriteOptions().setDisableWAL(true);
            ro = new ReadOptions();
            this.bloomFilter = filter;
            this.listMerge = merge;
            this.columnOptions = cfOptions;
            this.dbOptions = options;
            this.db = opened;
            this.defaultColumn = handles.get(0);
            this.writeOptions = wo;
            this.readOptions = ro;
        } catch (RocksDBException | IOException | RuntimeException e) {
            for (AutoCloseable c : new AutoCloseable[] {ro, wo, options, cfOptions, merge, filter}) {
                closeQuietly(c);
            }
            pools.release(memory);
            deleteDirectory(directory);
            throw new RocksDbStateException("Could not open the RocksDB state of " + owner + " in " + directory + ": "
                    + e.getMessage() + ". Check state.backend.rocksdb.local-dir (room and permissions)", e);
        }
        LOG.debug("Opened RocksDB state of {} in {} (slot {}, budget {} bytes)", owner, directory, memory.slot(),
                memory.budget());
    }

    // ------------------------------------------------------------------ keys

    /**
     * Sets the key for the following state accesses: its key group (checked to be this backend's) and
     * its bytes, computed once here for all accesses until the next key.
     */
    @Override
    public void setCurrentKey(Object key) {
        ttlCleaner.onRecord();
        if (key == currentKey && key != null) {
            return;
        }
        int keyGroup = KeyGroups.keyGroupFor(key, maxParallelism);
        if (!range.contains(keyGroup)) {
            throw new IllegalStateException("Key " + key + " belongs to key group " + keyGroup
                    + ", outside this subtask's key groups " + range + ": the record was routed to the wrong"
                    + " subtask. Partition the stream with KeyGroups and the same max parallelism ("
                    + maxParallelism + "), and make sure the key's hashCode is deterministic");
        }
        currentKeyBytes = keyBytes(keyGroup, key);
        currentKey = key;
    }

    /** The RocksDB key prefix of {@code key} in {@code keyGroup}: group, then the key's bytes. Task thread. */
    byte[] keyBytes(int keyGroup, Object key) {
        keyBuffer.clear();
        keyBuffer.writeShort(keyGroup);
        try {
            keySerializer.serialize(key, keyBuffer);
        } catch (RuntimeException e) {
            throw new SerializationException("Cannot write key " + key + " of type " + key.getClass().getName()
                    + " with key serializer " + keySerializer.typeName() + " (" + e.getMessage() + "): declare a"
                    + " serializer for the key type with keyBy(selector, TypeSerializer)", e);
        }
        return Arrays.copyOf(keyBuffer.array(), keyBuffer.position());
    }

    @Override
    public Object currentKey() {
        return currentKey;
    }

    /** The RocksDB key of the current key; fails if no key was set. Task thread. */
    byte[] currentKeyBytes(String stateName) {
        if (currentKeyBytes == null) {
            throw new IllegalStateException("State '" + stateName + "' was accessed with no current key:"
                    + " keyed state can only be used while processing a record of a keyed stream");
        }
        return currentKeyBytes;
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return range;
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    TypeSerializer<Object> keySerializer() {
        return keySerializer;
    }

    Clock clock() {
        return clock;
    }

    String owner() {
        return owner;
    }

    RocksDB db() {
        return db;
    }

    // ------------------------------------------------------------------ states

    /** With a time-to-live: a state of timestamped values behind a decorator ({@link TtlStates}). */
    @Override
    public <T> ValueState<T> getValueState(ValueStateDescriptor<T> descriptor) {
        if (descriptor.ttlConfig() != null) {
            RocksDbState internal = register(TtlStates.internal(descriptor));
            ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
            @SuppressWarnings("unchecked")
            ValueState<TimestampedValue<T>> values = (ValueState<TimestampedValue<T>>) internal;
            return TtlStates.value(values, descriptor.ttlConfig(), clock);
        }
        @SuppressWarnings("unchecked")
        ValueState<T> state = (ValueState<T>) register(descriptor);
        return state;
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        if (descriptor.ttlConfig() != null) {
            RocksDbState internal = register(TtlStates.internal(descriptor));
            ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
            @SuppressWarnings("unchecked")
            ListState<TimestampedValue<T>> elements = (ListState<TimestampedValue<T>>) internal;
            return TtlStates.list(elements, descriptor.ttlConfig(), clock, descriptor.name());
        }
        @SuppressWarnings("unchecked")
        ListState<T> state = (ListState<T>) register(descriptor);
        return state;
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        if (descriptor.ttlConfig() != null) {
            RocksDbState internal = register(TtlStates.internal(descriptor));
            ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
            @SuppressWarnings("unchecked")
            MapState<K, TimestampedValue<V>> entries = (MapState<K, TimestampedValue<V>>) internal;
            return TtlStates.map(entries, descriptor.ttlConfig(), clock);
        }
        @SuppressWarnings("unchecked")
        MapState<K, V> state = (MapState<K, V>) register(descriptor);
        return state;
    }

    /** The background clean-up of this backend's states with a time-to-live (for tests). */
    public TtlCleaner ttlCleaner() {
        return ttlCleaner;
    }

    private RocksDbState register(StateDescriptor descriptor) {
        Objects.requireNonNull(descriptor, "state descriptor");
        requireOpen();
        StateMetaInfo requested = StateMetaInfo.of(descriptor);
        RocksDbState state = states.get(requested.name());
        if (state == null) {
            return create(requested);
        }
        requireSameKind(state.metaInfo(), requested, "");
        StateMetaInfo current = state.metaInfo();
        StateRegistration.Outcome outcome = StateRegistration.compare(current, requested, owner);
        if (outcome == StateRegistration.Outcome.MIGRATE) {
            state.migrateTo(requested);
        }
        state.metaInfo(requested);
        return state;
    }

    private static void requireSameKind(StateMetaInfo existing, StateMetaInfo requested, String where) {
        if (existing.kind() != requested.kind()) {
            throw new StateKindConflictException("State '" + requested.name() + "' is already registered as "
                    + existing.kind() + " state" + where + " and cannot also be " + requested.kind()
                    + " state: give the " + requested.kind() + " state a different name");
        }
    }

    private RocksDbState create(StateMetaInfo metaInfo) {
        ColumnFamilyHandle column;
        try {
            column = db.createColumnFamily(new ColumnFamilyDescriptor(metaInfo.name().getBytes(StandardCharsets.UTF_8),
                    columnOptions));
        } catch (RocksDBException e) {
            throw failure("create the column family of state '" + metaInfo.name() + "'", e);
        }
        return adopt(metaInfo, column);
    }

    /** Registers a state whose column family exists already (created, or restored with the instance). */
    private RocksDbState adopt(StateMetaInfo metaInfo, ColumnFamilyHandle column) {
        RocksDbState state = switch (metaInfo.kind()) {
            case VALUE -> new RocksDbValueState<>(this, column, metaInfo);
            case LIST -> new RocksDbListState<>(this, column, metaInfo);
            case MAP -> new RocksDbMapState<>(this, column, metaInfo);
        };
        states.put(metaInfo.name(), state);
        List<ColumnFamilyHandle> all = new ArrayList<>(columns);
        all.add(column);
        columns = List.copyOf(all);
        return state;
    }

    /**
     * The keys with an entry in the state {@code stateName}, in RocksDB order (by key group, then by
     * key bytes). A full scan of the state's column family, materialised in a list; for operators
     * that rebuild an index after a restore (timers).
     */
    @Override
    public List<Object> keysOf(String stateName) {
        RocksDbState state = states.get(stateName);
        List<Object> keys = new ArrayList<>();
        if (state != null) {
            forEachKey(state, (group, key) -> keys.add(key));
        }
        return keys;
    }

    /**
     * The keys with any state, summed over states (a key with two states counts twice), like the heap
     * backend; a full scan of every column family: for tests.
     */
    @Override
    public long numberOfKeys() {
        long[] n = {0};
        for (RocksDbState state : states.values()) {
            forEachKey(state, (group, key) -> n[0]++);
        }
        return n[0];
    }

    interface KeyVisitor {
        void visit(int keyGroup, Object key);
    }

    /** Calls {@code visitor} once per key of {@code state}, in RocksDB order. Task thread. */
    private void forEachKey(RocksDbState state, KeyVisitor visitor) {
        DataInputBuffer in = new DataInputBuffer();
        byte[] previousPrefix = null;
        try (RocksIterator it = db.newIterator(state.column(), readOptions)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                byte[] k = it.key();
                if (previousPrefix != null && startsWith(k, previousPrefix)) {
                    continue; // another map entry of the same key
                }
                in.reset(k, KEY_GROUP_BYTES, k.length);
                Object key = keySerializer.deserialize(in);
                previousPrefix = Arrays.copyOf(k, in.position());
                visitor.visit(keyGroupOf(k), key);
            }
        }
    }

    static int keyGroupOf(byte[] key) {
        return ((key[0] & 0xFF) << 8) | (key[1] & 0xFF);
    }

    static boolean startsWith(byte[] bytes, byte[] prefix) {
        if (bytes.length < prefix.length) {
            return false;
        }
        return Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    // ------------------------------------------------------------------ snapshots and restore

    /**
     * Takes a RocksDB snapshot (a sequence number: instant, nothing copied) and the states'
     * descriptions; the returned snapshot iterates it in the canonical format on the I/O thread.
     */
    @Override
    public KeyedStateSnapshot snapshot() {
        requireOpen();
        List<StateMetaInfo> metaInfos = new ArrayList<>(states.size());
        List<ColumnFamilyHandle> stateColumns = new ArrayList<>(states.size());
        for (RocksDbState state : states.values()) {
            metaInfos.add(state.metaInfo());
            stateColumns.add(state.column());
        }
        Snapshot snapshot = db.getSnapshot();
        synchronized (guard) {
            openSnapshots.add(snapshot);
        }
        return new RocksDbFullSnapshot(this, snapshot, range, maxParallelism, keySerializer, metaInfos, stateColumns);
    }

    /** Lets a snapshot writer use the instance; {@code false} once it is closing. Any thread. */
    boolean enter() {
        return guard.tryEnter();
    }

    void exit() {
        guard.exit();
    }

    /** Whether a snapshot writer should stop: the backend is closing. Any thread. */
    boolean closing() {
        return guard.isClosing();
    }

    /** Releases a snapshot once written (or never to be written). Any thread; idempotent. */
    void releaseSnapshot(Snapshot snapshot) {
        synchronized (guard) {
            if (openSnapshots.remove(snapshot)) {
                db.releaseSnapshot(snapshot);
            }
        }
    }

    /**
     * Restores from canonical snapshots (of any backend, any key-group range of the same max
     * parallelism): keeps the groups of this backend's range, writes them in batches. The states are
     * registered with the snapshots' serializers; a later {@code get*State} with other serializers is
     * checked then ({@link StateRegistration}).
     */
    @Override
    public void restore(List<DataInputBuffer> snapshots) {
        requireOpen();
        if (restored || !states.isEmpty()) {
            throw new IllegalStateException("restore must be called once, before any state is registered;"
                    + (restored ? " this backend was already restored" : " states " + states.keySet() + " already exist"));
        }
        restored = true;
        try (RestoreBatch batch = new RestoreBatch()) {
            KeyedSnapshotReader reader = new KeyedSnapshotReader(range, maxParallelism, metaInfo -> {
                RocksDbState state = states.get(metaInfo.name());
                if (state == null) {
                    state = create(metaInfo);
                } else {
                    requireSameKind(state.metaInfo(), metaInfo, " in another snapshot of this restore");
                }
                RocksDbState target = state;
                return (keyGroup, key, value) -> target.restore(batch, keyBytes(keyGroup, key), value);
            });
            for (int i = 0; i < snapshots.size(); i++) {
                reader.readSnapshot(snapshots.get(i), i);
            }
            batch.flush();
        }
    }

    /** The writes of a restore, written to RocksDB every {@link #RESTORE_BATCH_BYTES}. Task thread. */
    final class RestoreBatch implements AutoCloseable {
        private final WriteBatch batch = new WriteBatch();

        void put(ColumnFamilyHandle column, byte[] key, byte[] value) {
            try {
                batch.put(column, key, value);
                if (batch.getDataSize() >= RESTORE_BATCH_BYTES) {
                    flush();
                }
            } catch (RocksDBException e) {
                throw failure("write restored state", e);
            }
        }

        void flush() {
            try {
                if (batch.count() > 0) {
                    db.write(writeOptions, batch);
                    batch.clear();
                }
            } catch (RocksDBException e) {
                throw failure("write restored state", e);
            }
        }

        @Override
        public void close() {
            batch.close();
        }
    }

    // ------------------------------------------------------------------ incremental checkpoints

    /**
     * With incremental checkpoints: flushes the write buffers (write-ahead logging is off, so only
     * flushed data is in files) and creates a RocksDB checkpoint, hard links of the live files, in a
     * directory beside the instance's; the returned snapshot uploads what is new on the I/O thread.
     * Otherwise the canonical {@link #snapshot()}.
     */
    @Override
    public KeyedStateSnapshot checkpointSnapshot(long checkpointId) {
        if (!incremental) {
            return snapshot();
        }
        requireOpen();
        lastSnapshotId = Math.max(lastSnapshotId, checkpointId);
        Path target = snapshotsDirectory().resolve("chk-" + checkpointId + "-" + java.util.UUID.randomUUID());
        List<StateMetaInfo> metaInfos = new ArrayList<>(states.size());
        List<ColumnFamilyHandle> all = new ArrayList<>(states.size() + 1);
        all.add(defaultColumn);
        for (RocksDbState state : states.values()) {
            metaInfos.add(state.metaInfo());
            all.add(state.column());
        }
        try (org.rocksdb.FlushOptions flush = new org.rocksdb.FlushOptions().setWaitForFlush(true);
             org.rocksdb.Checkpoint checkpoint = org.rocksdb.Checkpoint.create(db)) {
            db.flush(flush, all);
            Files.createDirectories(target.getParent());
            checkpoint.createCheckpoint(target.toString());
        } catch (RocksDBException | IOException e) {
            deleteDirectory(target);
            throw new RocksDbStateException("RocksDB could not create the local checkpoint " + target + " of " + owner
                    + " for checkpoint " + checkpointId + ": " + e.getMessage(), e);
        }
        return new RocksDbIncrementalSnapshot(this, checkpointId, target,
                IncrementalMetaData.encode(keySerializer, metaInfos), confirmedUploads);
    }

    /** Where local checkpoints are made: beside the instance's directory, on the same file system (hard links). */
    private Path snapshotsDirectory() {
        return directory.resolveSibling(directory.getFileName() + ".snapshots");
    }

    /** I/O thread: what checkpoint {@code checkpointId}'s upload refers to, until it is confirmed. */
    void uploaded(long checkpointId, Map<String, IncrementalStateHandle.StateFile> tableFiles, long newBytes) {
        pendingUploads.put(checkpointId, Map.copyOf(tableFiles));
        lastUploadedBytes = newBytes;
    }

    /**
     * Later checkpoints may refer to the table files of {@code checkpointId}: it completed, so the job
     * manager's shared-state registry keeps them while a retained checkpoint refers to them. Those of
     * aborted or older checkpoints are forgotten.
     *
     * <p>A confirmation that arrives after a snapshot for a later checkpoint was taken is not adopted
     * (the confirmed files stay those of an earlier checkpoint): that later checkpoint did not refer to
     * this one's new files, so once it completes and subsumes this one, the registry deletes them, and a
     * snapshot referring to them would name deleted files. The files of the checkpoint confirmed before
     * stay safe to refer to: every snapshot since refers to them under the same paths, the newest
     * completed checkpoint of this task included.
     */
    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map<String, IncrementalStateHandle.StateFile> files = pendingUploads.remove(checkpointId);
        if (files != null && lastSnapshotId <= checkpointId) {
            confirmedUploads = files;
        }
        pendingUploads.keySet().removeIf(id -> id < checkpointId);
    }

    /** Whether this backend checkpoints incrementally. */
    public boolean incremental() {
        return incremental;
    }

    /** Bytes the latest incremental checkpoint uploaded (-1 before the first), for tests and metrics. */
    public long lastUploadedBytes() {
        return lastUploadedBytes;
    }

    /**
     * Restores from incremental handles: downloads each handle's files and, when one handle holds all
     * of this backend's key groups, makes its instance this backend's own (no entry is re-inserted) and
     * deletes the key groups outside this backend's range with range deletions (clipping); otherwise
     * copies this backend's key groups out of each downloaded instance, as bytes, group by group. The
     * first checkpoint afterwards uploads every file again (it does not refer to the restored files,
     * which may belong to another job's checkpoints).
     */
    @Override
    public void restoreIncremental(List<IncrementalStateHandle> handles, CheckpointFiles files) {
        requireOpen();
        if (restored || !states.isEmpty()) {
            throw new IllegalStateException("restore must be called once, before any state is registered");
        }
        restored = true;
        for (IncrementalStateHandle h : handles) {
            if (h.maxParallelism() != maxParallelism) {
                throw new io.sluice.api.errors.MaxParallelismMismatchException("The incremental checkpoint state of key"
                        + " groups " + h.keyGroupRange() + " was written with max parallelism " + h.maxParallelism()
                        + ", but this job has max parallelism " + maxParallelism + ": keys map to different key groups,"
                        + " so the state cannot be restored. Set the max parallelism back to " + h.maxParallelism()
                        + " (pipeline.max-parallelism or setMaxParallelism)", h.maxParallelism(), maxParallelism);
            }
        }
        List<Path> downloaded = new ArrayList<>();
        try {
            for (int i = 0; i < handles.size(); i++) {
                Path target = snapshotsDirectory().resolve("restore-" + i + "-" + java.util.UUID.randomUUID());
                download(handles.get(i), files, target);
                downloaded.add(target);
            }
            IncrementalStateHandle first = handles.get(0);
            if (handles.size() == 1 && first.keyGroupRange().start() <= range.start()
                    && range.end() <= first.keyGroupRange().end()) {
                adoptInstance(downloaded.get(0), IncrementalMetaData.decode(first.stateMetaData()));
                clipTo(first.keyGroupRange());
            } else {
                for (int i = 0; i < handles.size(); i++) {
                    copyKeyGroups(downloaded.get(i), handles.get(i));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not restore the RocksDB state of " + owner + ": " + e.getMessage(), e);
        } finally {
            downloaded.forEach(RocksDbKeyedStateBackend::deleteDirectory);
        }
    }

    private static void download(IncrementalStateHandle handle, CheckpointFiles files, Path target) throws IOException {
        Files.createDirectories(target);
        for (IncrementalStateHandle.StateFile f : handle.sharedFiles()) {
            files.download(f.path(), target.resolve(f.localName()));
        }
        for (IncrementalStateHandle.StateFile f : handle.privateFiles()) {
            files.download(f.path(), target.resolve(f.localName()));
        }
    }

    /**
     * Replaces the (empty) open instance by the downloaded one at {@code downloaded}: closes it, moves
     * the files into this backend's directory and opens them with the states the metadata describes.
     */
    private void adoptInstance(Path downloaded, IncrementalMetaData meta) throws IOException {
        requireSameKeySerializer(meta);
        guard.exclusively(() -> {
            defaultColumn.close();
            try {
                db.closeE();
            } catch (RocksDBException e) {
                throw failure("close the empty instance before a restore", e);
            }
            deleteDirectory(directory);
            try {
                Files.move(downloaded, directory);
            } catch (IOException e) {
                throw new UncheckedIOException("Could not move the downloaded RocksDB files " + downloaded + " to "
                        + directory + ": " + e.getMessage(), e);
            }
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions));
            for (StateMetaInfo info : meta.states()) {
                descriptors.add(new ColumnFamilyDescriptor(info.name().getBytes(StandardCharsets.UTF_8), columnOptions));
            }
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            try {
                db = RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
            } catch (RocksDBException e) {
                throw failure("open the restored instance", e);
            }
            defaultColumn = handles.get(0);
            for (int i = 0; i < meta.states().size(); i++) {
                adopt(meta.states().get(i), handles.get(i + 1));
            }
        });
    }

    /** Deletes the key groups of {@code restoredRange} outside this backend's range, in every state. */
    private void clipTo(KeyGroupRange restoredRange) {
        for (RocksDbState state : states.values()) {
            try {
                if (restoredRange.start() < range.start()) {
                    db.deleteRange(state.column(), writeOptions, groupPrefix(restoredRange.start()), groupPrefix(range.start()));
                }
                if (restoredRange.end() > range.end()) {
                    db.deleteRange(state.column(), writeOptions, groupPrefix(range.end() + 1),
                            groupPrefix(restoredRange.end() + 1));
                }
            } catch (RocksDBException e) {
                throw failure("drop the key groups outside " + range + " of state '" + state.name() + "'", e);
            }
        }
    }

    /** The two key-group bytes that start every key of {@code keyGroup} (also just after the last group). */
    static byte[] groupPrefix(int keyGroup) {
        return new byte[] {(byte) (keyGroup >>> 8), (byte) keyGroup};
    }

    /** Copies this backend's key groups out of the downloaded instance at {@code downloaded}, entry by entry. */
    private void copyKeyGroups(Path downloaded, IncrementalStateHandle handle) {
        IncrementalMetaData meta = IncrementalMetaData.decode(handle.stateMetaData());
        requireSameKeySerializer(meta);
        int from = Math.max(range.start(), handle.keyGroupRange().start());
        int to = Math.min(range.end(), handle.keyGroupRange().end());
        if (from > to) {
            return;
        }
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions));
        for (StateMetaInfo info : meta.states()) {
            descriptors.add(new ColumnFamilyDescriptor(info.name().getBytes(StandardCharsets.UTF_8), columnOptions));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (RocksDB source = RocksDB.openReadOnly(dbOptions, downloaded.toString(), descriptors, handles);
             ReadOptions read = new ReadOptions().setFillCache(false);
             RestoreBatch batch = new RestoreBatch()) {
            try {
                byte[] end = groupPrefix(to + 1);
                for (int i = 0; i < meta.states().size(); i++) {
                    StateMetaInfo info = meta.states().get(i);
                    RocksDbState state = states.get(info.name());
                    if (state == null) {
                        state = create(info);
                    }
                    try (RocksIterator it = source.newIterator(handles.get(i + 1), read)) {
                        for (it.seek(groupPrefix(from)); it.isValid(); it.next()) {
                            byte[] key = it.key();
                            if (java.util.Arrays.compareUnsigned(key, end) >= 0) {
                                break;
                            }
                            batch.put(state.column(), key, it.value());
                        }
                    }
                }
                batch.flush();
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not read the restored RocksDB files " + downloaded + " for " + owner
                    + ": " + e.getMessage(), e);
        }
    }

    private void requireSameKeySerializer(IncrementalMetaData meta) {
        io.sluice.core.serialization.SerializerIdentity written = meta.keySerializer().identity();
        io.sluice.core.serialization.SerializerIdentity now = keySerializer.identity();
        boolean same = written == null || now == null ? meta.keySerializer().getClass() == keySerializer.getClass()
                : written.equals(now);
        if (!same) {
            throw new io.sluice.api.errors.StateTypeChangedException("The keys of " + owner + "'s incremental checkpoint"
                    + " state were written with key serializer " + meta.keySerializer().typeName() + ", but the job now"
                    + " keys by " + keySerializer.typeName() + ": RocksDB's files hold the keys' bytes, so they cannot be"
                    + " read. Restore from a savepoint (the canonical format re-reads the keys), or key as before");
        }
    }

    /** Writes the instance of files at {@code directory} in the canonical format (read-only). */
    void writeCanonical(Path snapshotDirectory, byte[] stateMetaData, io.sluice.core.serialization.DataOutputBuffer out) {
        IncrementalMetaData meta = IncrementalMetaData.decode(stateMetaData);
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions));
        for (StateMetaInfo info : meta.states()) {
            descriptors.add(new ColumnFamilyDescriptor(info.name().getBytes(StandardCharsets.UTF_8), columnOptions));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        if (!guard.tryEnter()) {
            throw new IllegalStateException("The RocksDB state of " + owner + " was closed");
        }
        try (RocksDB source = RocksDB.openReadOnly(dbOptions, snapshotDirectory.toString(), descriptors, handles);
             ReadOptions read = new ReadOptions().setFillCache(false)) {
            try {
                RocksDbFullSnapshot.write(out, source, handles.subList(1, handles.size()), read, range, maxParallelism,
                        meta.keySerializer(), meta.states(), () -> { });
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not read the local checkpoint " + snapshotDirectory + " of " + owner
                    + ": " + e.getMessage(), e);
        } finally {
            guard.exit();
        }
    }

    // ------------------------------------------------------------------ metrics and lifecycle

    @Override
    public KeyedStateMetrics metrics() {
        return new KeyedStateMetrics() {
            @Override
            public double memoryBudgetBytes() {
                return memory.budget();
            }

            @Override
            public double memoryUsageBytes() {
                if (!guard.tryEnter()) {
                    return Double.NaN;
                }
                try {
                    return memory.usage();
                } finally {
                    guard.exit();
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
        };
    }

    private double sumOfProperty(String property) {
        if (!guard.tryEnter()) {
            return Double.NaN;
        }
        try {
            long sum = 0;
            for (ColumnFamilyHandle c : columns) {
                sum += db.getLongProperty(c, property);
            }
            return sum;
        } catch (RocksDBException e) {
            return Double.NaN;
        } finally {
            guard.exit();
        }
    }

    /** The slot memory this backend uses (for tests). */
    SlotMemory slotMemory() {
        return memory;
    }

    /** The local directory of this instance (for tests). */
    public Path directory() {
        return directory;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The RocksDB state of " + owner + " is closed");
        }
    }

    /**
     * Stops a snapshot being written (it fails; the checkpoint is declined), releases the snapshots,
     * closes RocksDB, gives the slot memory back and deletes the local directory. Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        guard.closeAndAwait();
        synchronized (guard) {
            for (Snapshot s : openSnapshots) {
                db.releaseSnapshot(s);
            }
            openSnapshots.clear();
        }
        for (RocksDbState state : states.values()) {
            state.column().close();
        }
        defaultColumn.close();
        try {
            db.closeE();
        } catch (RocksDBException e) {
            LOG.warn("Closing the RocksDB state of {} reported: {}", owner, e.getMessage());
        }
        for (AutoCloseable c : new AutoCloseable[] {readOptions, writeOptions, dbOptions, columnOptions, listMerge,
                bloomFilter}) {
            closeQuietly(c);
        }
        pools.release(memory);
        deleteDirectory(directory);
        deleteDirectory(snapshotsDirectory());
        LOG.debug("Closed the RocksDB state of {}", owner);
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

    @Override
    public String toString() {
        return "RocksDbKeyedStateBackend{" + owner + ", key groups " + range + ", " + directory + "}";
    }
}
