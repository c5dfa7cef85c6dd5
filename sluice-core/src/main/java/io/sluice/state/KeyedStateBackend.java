package io.sluice.state;

import io.sluice.api.state.ListState;
import io.sluice.api.state.ListStateDescriptor;
import io.sluice.api.state.MapState;
import io.sluice.api.state.MapStateDescriptor;
import io.sluice.api.state.ValueState;
import io.sluice.api.state.ValueStateDescriptor;
import io.sluice.core.serialization.DataInputBuffer;
import java.util.List;

/**
 * Holds the keyed state of one subtask, for the key groups in {@link #keyGroupRange()}: on the heap
 * ({@link HeapKeyedStateBackend}) or elsewhere (the RocksDB backend of {@code sluice-state-rocksdb}),
 * as the job's {@link StateBackend} creates it. Every backend writes and reads snapshots in the one
 * canonical {@link KeyedSnapshotFormat}, so a snapshot of one restores into another.
 *
 * <p>Threading: every method is called from the owning task thread only, except
 * {@link KeyedStateSnapshot#writeTo}, which runs on an I/O thread after {@link #snapshot()}
 * returned, and {@link #metrics()}, read by any thread. State handles returned by {@code get*State}
 * read and write the value of the current key set with {@link #setCurrentKey}.
 *
 * <p>Lifecycle: created by the task, optionally {@link #restore restored} once, used, and
 * {@link #close() closed} when the task ends (also on failure or cancellation).
 */
public interface KeyedStateBackend extends AutoCloseable {

    /** Sets the key that state accesses refer to until the next call. */
    void setCurrentKey(Object key);

    Object currentKey();

    KeyGroupRange keyGroupRange();

    <T> ValueState<T> getValueState(ValueStateDescriptor<T> descriptor);

    <T> ListState<T> getListState(ListStateDescriptor<T> descriptor);

    <K, V> MapState<K, V> getMapState(MapStateDescriptor<K, V> descriptor);

    /**
     * The keys that have a value in the state named {@code stateName} (none if no such state was
     * registered), as a copy: the caller may change the state while iterating. For operators that
     * rebuild an index over all keys after a restore (timers).
     */
    List<Object> keysOf(String stateName);

    /** The number of keys with any state, over all states; for metrics and tests. */
    long numberOfKeys();

    /**
     * The synchronous part of a checkpoint: captures a consistent copy of the state, quickly, on
     * the task thread. Later changes to the state, including changes user code makes to value
     * objects it got from the state, do not affect the returned snapshot.
     */
    KeyedStateSnapshot snapshot();

    /**
     * Restores from snapshots written by {@link KeyedStateSnapshot#writeTo}, possibly by other
     * subtasks with other key-group ranges: only key groups in this backend's range are kept. Each is
     * read as a stream, a key group at a time ({@link KeyedSnapshotReader}). Called once, before any
     * state access.
     */
    void restoreFrom(List<KeyedSnapshotInput> snapshots);

    /** {@link #restoreFrom} snapshots held in memory (the remaining bytes of each buffer). */
    default void restore(List<DataInputBuffer> snapshots) {
        restoreFrom(snapshots.stream().map(KeyedSnapshotInput::of).toList());
    }

    /**
     * The synchronous part of checkpoint {@code checkpointId}: by default the canonical
     * {@link #snapshot()}; a backend that checkpoints incrementally returns an
     * {@link IncrementalKeyedStateSnapshot}. Savepoints always use {@link #snapshot()}.
     */
    default KeyedStateSnapshot checkpointSnapshot(long checkpointId) {
        return snapshot();
    }

    /**
     * Checkpoint {@code checkpointId} completed: an incremental backend may refer to the files it
     * uploaded for it in later checkpoints. Task thread. Nothing by default.
     */
    default void notifyCheckpointComplete(long checkpointId) {
    }

    /**
     * Restores from incremental snapshots ({@link IncrementalStateHandle}s of any key-group ranges of the
     * same max parallelism), downloading their files with {@code files}. Called once, before any state
     * access, instead of {@link #restore}.
     *
     * @throws IncrementalStateRestoreException by default: only a backend that writes them reads them
     */
    default void restoreIncremental(List<IncrementalStateHandle> handles, CheckpointFiles files) {
        throw new IncrementalStateRestoreException("This checkpoint holds the keyed state as RocksDB's own files"
                + " (an incremental checkpoint), which only state.backend: rocksdb reads: restore it with"
                + " state.backend: rocksdb, or restore from a savepoint (whose format every backend reads)");
    }

    /** Figures for metrics, readable from any thread. */
    default KeyedStateMetrics metrics() {
        return KeyedStateMetrics.NONE;
    }

    /**
     * Releases what the backend holds beyond the heap (local files, native memory). A snapshot still
     * being written stops with an error. Idempotent; task thread.
     */
    @Override
    default void close() {
    }
}
