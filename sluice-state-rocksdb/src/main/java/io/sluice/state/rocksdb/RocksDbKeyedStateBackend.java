package io.sluice.state.rocksdb;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.StateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import io.sluice.core.serialization.DataOutputBuffer;
import io.sluice.core.serialization.TimestampedValue;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.CheckpointFiles;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedSnapshotInput;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.KeyedStateBackendParameters;
import io.sluice.state.KeyedStateMetrics;
import io.sluice.state.KeyedStateSnapshot;
import io.sluice.state.StateRegistration;
import io.sluice.state.ttl.TtlCleaner;
import io.sluice.state.ttl.TtlStates;
import io.sluice.util.Clock;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Executor;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
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
 * its checkpoint, never from local files), and the local directory is deleted after the backend
 * closes, on the state backend's closer thread (with RocksDB's own close and the slot memory's return).
 *
 * <p><b>Snapshots</b> are full and in the canonical format ({@link RocksDbFullSnapshot}): a RocksDB
 * snapshot taken on the task thread (instant), iterated key group by key group on the I/O thread
 * while the task goes on; with incremental checkpoints, RocksDB checkpoints whose new files are
 * uploaded ({@link RocksDbIncrementalSnapshot}), optionally between materialisations the changelog
 * of the writes since ({@link RocksDbChangelog}).
 *
 * <p><b>Parts.</b> This class is the {@link KeyedStateBackend} facade over: {@link RocksDbInstance}
 * (the native instance, its options, guard and local directories), {@link RocksDbKeys} (key layout
 * and current key), {@link RocksDbStates} (the registered states, one column family each, with the
 * kinds {@link RocksDbValueState}, {@link RocksDbListState}, {@link RocksDbMapState}),
 * {@link RocksDbSnapshots} (full and incremental snapshots), {@link RocksDbRestore} (both restores)
 * and {@link RocksDbStateMetrics}; time-to-live states are decorated here ({@link TtlStates}).
 *
 * <p>Threading: the task thread only, except {@link KeyedStateSnapshot#writeTo} of a snapshot it
 * took and {@link #metrics()}, which enter the {@link NativeGuard}; {@link #close} waits for them.
 */
public final class RocksDbKeyedStateBackend implements KeyedStateBackend {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbKeyedStateBackend.class);

    private final String owner;
    private final KeyGroupRange range;
    private final int maxParallelism;
    private final Clock clock;
    private final TtlCleaner ttlCleaner;
    private final RocksDbKeys keys;
    private final RocksDbInstance instance;
    private final RocksDbStates states;
    private final RocksDbSnapshots snapshots;
    private final RocksDbRestore restore;
    private final RocksDbChangelog changelog;
    private boolean restored;
    private boolean closed;

    // For the state objects: the instance's options and scratch buffers. Task thread.
    final WriteOptions writeOptions;
    final ReadOptions readOptions;
    final DataOutputBuffer scratch = new DataOutputBuffer(256);
    final DataInputBuffer input = new DataInputBuffer();

    RocksDbKeyedStateBackend(KeyedStateBackendParameters p, Path directory, SlotMemoryPools pools, SlotMemory memory,
                             Executor closer, FileTransfers transfers, boolean incrementalByDefault,
                             CompactionSettings compaction, int materializeEvery) {
        this.owner = p.owner();
        this.range = p.range();
        this.maxParallelism = p.maxParallelism();
        @SuppressWarnings("unchecked")
        TypeSerializer<Object> keySerializer = (TypeSerializer<Object>) p.keySerializer();
        this.clock = p.clock();
        this.ttlCleaner = new TtlCleaner(clock);
        this.keys = new RocksDbKeys(range, maxParallelism, keySerializer);
        this.instance = new RocksDbInstance(owner, directory, pools, memory, closer, compaction, range.size());
        this.writeOptions = instance.writeOptions;
        this.readOptions = instance.readOptions;
        this.states = new RocksDbStates(this, instance, keys);
        boolean incremental = p.incremental() != null ? p.incremental() : incrementalByDefault;
        this.changelog = new RocksDbChangelog(instance.snapshotsDirectory().resolve("changelog"),
                incremental ? materializeEvery : 1, owner);
        this.snapshots = new RocksDbSnapshots(instance, states, range, maxParallelism, keySerializer, incremental,
                changelog, p.localRecovery(), transfers);
        this.restore = new RocksDbRestore(instance, states, keys, range, maxParallelism, changelog, clock, transfers);
    }

    // ------------------------------------------------------------------ keys

    /**
     * Sets the key for the following state accesses: its key group (checked to be this backend's) and
     * its bytes, computed once here for all accesses until the next key.
     */
    @Override
    public void setCurrentKey(Object key) {
        ttlCleaner.onRecord();
        keys.setCurrentKey(key);
    }

    @Override
    public Object currentKey() {
        return keys.currentKey();
    }

    /** The RocksDB key of the current key; fails if no key was set. Task thread. */
    byte[] currentKeyBytes(String stateName) {
        return keys.currentKeyBytes(stateName);
    }

    @Override
    public KeyGroupRange keyGroupRange() {
        return range;
    }

    public int maxParallelism() {
        return maxParallelism;
    }

    TypeSerializer<Object> keySerializer() {
        return keys.keySerializer();
    }

    String owner() {
        return owner;
    }

    RocksDB db() {
        return instance.db();
    }

    /** The changelog the states log their writes to (it logs nothing unless a changelog checkpoint may follow). */
    RocksDbChangelog changelog() {
        return changelog;
    }

    /** Writes {@code batch} of the states' writes, and logs it. Task thread. */
    void write(org.rocksdb.WriteBatch batch) throws RocksDBException {
        instance.db().write(writeOptions, batch);
        changelog.batch(batch);
    }

    // ------------------------------------------------------------------ states

    /** With a time-to-live: a state of timestamped values behind a decorator ({@link TtlStates}). */
    @Override
    public <T> ValueState<T> getValueState(ValueStateDescriptor<T> descriptor) {
        if (descriptor.ttlConfig() != null) {
            @SuppressWarnings("unchecked")
            ValueState<TimestampedValue<T>> values = (ValueState<TimestampedValue<T>>) registerTtl(descriptor,
                    TtlStates.internal(descriptor));
            return TtlStates.value(values, descriptor.ttlConfig(), clock);
        }
        @SuppressWarnings("unchecked")
        ValueState<T> state = (ValueState<T>) register(descriptor);
        return state;
    }

    @Override
    public <T> ListState<T> getListState(ListStateDescriptor<T> descriptor) {
        if (descriptor.ttlConfig() != null) {
            @SuppressWarnings("unchecked")
            ListState<TimestampedValue<T>> elements = (ListState<TimestampedValue<T>>) registerTtl(descriptor,
                    TtlStates.internal(descriptor));
            return TtlStates.list(elements, descriptor.ttlConfig(), clock, descriptor.name());
        }
        @SuppressWarnings("unchecked")
        ListState<T> state = (ListState<T>) register(descriptor);
        return state;
    }

    @Override
    public <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor) {
        if (descriptor.ttlConfig() != null) {
            @SuppressWarnings("unchecked")
            MapState<K, TimestampedValue<V>> entries = (MapState<K, TimestampedValue<V>>) registerTtl(descriptor,
                    TtlStates.internal(descriptor));
            return TtlStates.map(entries, descriptor.ttlConfig(), clock);
        }
        @SuppressWarnings("unchecked")
        MapState<K, V> state = (MapState<K, V>) register(descriptor);
        return state;
    }

    /** Registers the internal state of timestamped values of {@code descriptor} and its background clean-up. */
    private RocksDbState registerTtl(StateDescriptor descriptor, StateDescriptor internalDescriptor) {
        RocksDbState internal = register(internalDescriptor);
        ttlCleaner.register(descriptor.name(), descriptor.ttlConfig(), internal::removeExpired);
        return internal;
    }

    /** The background clean-up of this backend's states with a time-to-live (for tests). */
    public TtlCleaner ttlCleaner() {
        return ttlCleaner;
    }

    private RocksDbState register(StateDescriptor descriptor) {
        requireOpen();
        return states.register(descriptor);
    }

    /**
     * The keys with an entry in the state {@code stateName}, in RocksDB order (by key group, then by
     * key bytes). A full scan of the state's column family, materialised in a list; for operators
     * that rebuild an index after a restore (timers).
     */
    @Override
    public List<Object> keysOf(String stateName) {
        return states.keysOf(stateName);
    }

    /**
     * The keys with any state, summed over states (a key with two states counts twice), like the heap
     * backend; a full scan of every column family: for tests.
     */
    @Override
    public long numberOfKeys() {
        return states.numberOfKeys();
    }

    // ------------------------------------------------------------------ snapshots and restore

    /**
     * Takes a RocksDB snapshot (a sequence number: instant, nothing copied) and the states'
     * descriptions; the returned snapshot iterates it in the canonical format on the I/O thread.
     */
    @Override
    public KeyedStateSnapshot snapshot() {
        requireOpen();
        return snapshots.snapshot();
    }

    /**
     * Restores from canonical snapshots (of any backend, any key-group range of the same max
     * parallelism): keeps the groups of this backend's range, writes them in batches. The states are
     * registered with the snapshots' serializers; a later {@code get*State} with other serializers is
     * checked then ({@link StateRegistration}).
     */
    @Override
    public void restoreFrom(List<KeyedSnapshotInput> snapshots) {
        requireOpen();
        if (restored || !states.isEmpty()) {
            throw new IllegalStateException("restore must be called once, before any state is registered;"
                    + (restored ? " this backend was already restored" : " states " + states.names() + " already exist"));
        }
        restored = true;
        restore.restore(snapshots);
    }

    /**
     * With incremental checkpoints: flushes the write buffers (write-ahead logging is off, so only
     * flushed data is in files) and creates a RocksDB checkpoint, hard links of the live files, in a
     * directory beside the instance's; the returned snapshot uploads what is new on the I/O thread.
     * Between materialisations of the changelog ({@link RocksDbChangelog}) nothing is flushed: the
     * snapshot is the last materialisation's files and the changelog segments since. Otherwise the
     * canonical {@link #snapshot()}.
     */
    @Override
    public KeyedStateSnapshot checkpointSnapshot(long checkpointId) {
        if (!snapshots.incremental()) {
            return snapshot();
        }
        requireOpen();
        return snapshots.checkpointSnapshot(checkpointId);
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
        snapshots.notifyCheckpointComplete(checkpointId);
    }

    /** Whether this backend checkpoints incrementally. */
    public boolean incremental() {
        return snapshots.incremental();
    }

    /** Bytes the latest incremental checkpoint uploaded (-1 before the first), for tests and metrics. */
    public long lastUploadedBytes() {
        return snapshots.lastUploadedBytes();
    }

    /**
     * Restores from incremental handles: downloads each handle's files and, when one handle holds all
     * of this backend's key groups, makes its instance this backend's own (no entry is re-inserted) and
     * deletes the key groups outside this backend's range with range deletions (clipping); otherwise
     * imports the table files of each downloaded instance that holds only key groups of this backend (as
     * when a job is rescaled to fewer subtasks; nothing is re-inserted) and copies this backend's key
     * groups out of the others, as bytes, group by group. The first checkpoint afterwards uploads every file again (it does not refer to the restored files,
     * which may belong to another job's checkpoints).
     */
    @Override
    public void restoreIncremental(List<IncrementalStateHandle> handles, CheckpointFiles files) {
        requireOpen();
        if (restored || !states.isEmpty()) {
            throw new IllegalStateException("restore must be called once, before any state is registered");
        }
        restored = true;
        snapshots.adoptRestored(restore.restoreIncremental(handles, files));
    }

    // ------------------------------------------------------------------ metrics and lifecycle

    @Override
    public KeyedStateMetrics metrics() {
        return new RocksDbStateMetrics(instance, states);
    }

    /** The changelog writes the restore replayed (for tests). */
    long restoreReplayedWrites() {
        return restore.replayedWrites();
    }

    /** Whether the restore opened a task-local instance instead of replaying (for tests). */
    boolean restoredLocalInstance() {
        return restore.restoredLocalInstance();
    }

    /** Whether RocksDB was opened empty before (or without) a restore (for tests). */
    boolean openedEmpty() {
        return instance.openedEmpty();
    }

    /** The slot memory this backend uses (for tests). */
    SlotMemory slotMemory() {
        return instance.memory();
    }

    /** The entries written to the memtables of every state and not yet flushed to table files (for tests). */
    long memtableEntries() {
        long n = 0;
        for (RocksDbState state : states.all()) {
            try {
                n += instance.db().getLongProperty(state.column(), "rocksdb.num-entries-active-mem-table")
                        + instance.db().getLongProperty(state.column(), "rocksdb.num-entries-imm-mem-tables");
            } catch (RocksDBException e) {
                throw failure("read the memtable entries of state '" + state.name() + "'", e);
            }
        }
        return n;
    }

    /** Compacts the key groups {@code groups} of every state into the last level (for tests). */
    void compactKeyGroups(KeyGroupRange groups) {
        for (RocksDbState state : states.all()) {
            try {
                instance.db().compactRange(state.column(), RocksDbKeys.groupPrefix(groups.start()),
                        RocksDbKeys.groupPrefix(groups.end() + 1));
            } catch (RocksDBException e) {
                throw failure("compact key groups " + groups + " of state '" + state.name() + "'", e);
            }
        }
    }

    /** The local directory of this instance (for tests). */
    public Path directory() {
        return instance.directory();
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("The RocksDB state of " + owner + " is closed");
        }
    }

    /**
     * Stops a snapshot being written (it fails; the checkpoint is declined) and releases the snapshots;
     * closing RocksDB, giving the slot memory back and deleting the local directory follow on the state
     * backend's closer thread ({@link RocksDbInstance#close}). Idempotent.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        changelog.close();
        instance.close(states.columns());
        LOG.debug("Closed the RocksDB state of {}", owner);
    }

    RocksDbStateException failure(String what, RocksDBException e) {
        return instance.failure(what, e);
    }

    @Override
    public String toString() {
        return "RocksDbKeyedStateBackend{" + owner + ", key groups " + range + ", " + instance.directory() + "}";
    }
}
