package io.sluice.state.rocksdb;

import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedSnapshotOutput;
import io.sluice.state.KeyedStateSnapshot;
import io.sluice.state.StateMetaInfo;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Snapshot;

/**
 * Takes the snapshots of a {@link RocksDbKeyedStateBackend}: full ones in the canonical format
 * ({@link RocksDbFullSnapshot}, from a RocksDB snapshot) and, with incremental checkpoints, RocksDB
 * checkpoints whose new table files are uploaded ({@link RocksDbIncrementalSnapshot}). Keeps which
 * table files each checkpoint uploaded or referred to until it is confirmed, so that the next
 * checkpoint refers to the files of the latest confirmed one instead of uploading them again.
 *
 * <p>Threading: {@link #snapshot}, {@link #checkpointSnapshot} and {@link #notifyCheckpointComplete}
 * on the task thread; {@link #uploaded} and {@link #writeCanonical} on the I/O thread of a snapshot
 * taken here; {@link #lastUploadedBytes} on any thread.
 */
final class RocksDbSnapshots {
    private final RocksDbInstance instance;
    private final RocksDbStates states;
    private final KeyGroupRange range;
    private final int maxParallelism;
    private final TypeSerializer<Object> keySerializer;
    /** Whether checkpoints upload RocksDB's files incrementally ({@link #checkpointSnapshot}). */
    private final boolean incremental;
    /** The changelog of checkpoints between materialisations (disabled: every checkpoint materialises). */
    private final RocksDbChangelog changelog;
    /**
     * Whether the task keeps task-local copies: a changelog checkpoint then also flushes and keeps a local RocksDB
     * checkpoint of the whole instance, which a restore on this task executor opens instead of replaying.
     */
    private final boolean localInstances;
    /** Runs a checkpoint's uploads, several files at a time. */
    private final FileTransfers transfers;
    /** Table files of the latest checkpoint this task confirmed: local name to where they are. Task thread. */
    private Map<String, IncrementalStateHandle.StateFile> confirmedUploads = Map.of();
    /** The table files each checkpoint uploaded or referred to, until confirmed or superseded. */
    private final Map<Long, Map<String, IncrementalStateHandle.StateFile>> pendingUploads = new ConcurrentHashMap<>();
    /** The newest checkpoint id a snapshot was taken for, -1 before the first. Task thread. */
    private long lastSnapshotId = -1;
    /** Bytes the latest incremental upload sent (new table files and own files), for metrics. */
    private volatile long lastUploadedBytes = -1;

    RocksDbSnapshots(RocksDbInstance instance, RocksDbStates states, KeyGroupRange range, int maxParallelism,
                     TypeSerializer<Object> keySerializer, boolean incremental, RocksDbChangelog changelog,
                     boolean localInstances, FileTransfers transfers) {
        this.localInstances = localInstances;
        this.transfers = transfers;
        this.instance = instance;
        this.states = states;
        this.range = range;
        this.maxParallelism = maxParallelism;
        this.keySerializer = keySerializer;
        this.incremental = incremental;
        this.changelog = changelog;
    }

    /**
     * Takes a RocksDB snapshot (instant, nothing copied) and the states' descriptions; the returned
     * snapshot iterates it in the canonical format on the I/O thread.
     */
    KeyedStateSnapshot snapshot() {
        List<StateMetaInfo> metaInfos = new ArrayList<>();
        List<ColumnFamilyHandle> stateColumns = new ArrayList<>();
        for (RocksDbState state : states.all()) {
            metaInfos.add(state.metaInfo());
            stateColumns.add(state.column());
        }
        Snapshot snapshot = instance.takeSnapshot();
        return new RocksDbFullSnapshot(instance, snapshot, range, maxParallelism, keySerializer, metaInfos,
                stateColumns);
    }

    /**
     * With incremental checkpoints: flushes the write buffers (write-ahead logging is off, so only
     * flushed data is in files) and creates a RocksDB checkpoint, hard links of the live files, in a
     * directory beside the instance's; the returned snapshot uploads what is new on the I/O thread.
     * Between materialisations ({@link RocksDbChangelog}) the directory holds hard links of the last
     * materialisation's files and of the changelog segments since, and nothing is flushed for it; with task-local
     * copies the instance is also flushed into a local RocksDB checkpoint beside it, kept locally only (a restore on
     * this task executor opens it and replays nothing). Otherwise the canonical {@link #snapshot()}.
     */
    KeyedStateSnapshot checkpointSnapshot(long checkpointId) {
        if (!incremental) {
            return snapshot();
        }
        lastSnapshotId = Math.max(lastSnapshotId, checkpointId);
        Path target = instance.snapshotsDirectory().resolve("chk-" + checkpointId + "-" + UUID.randomUUID());
        List<StateMetaInfo> metaInfos = new ArrayList<>();
        List<ColumnFamilyHandle> all = new ArrayList<>();
        all.add(instance.defaultColumn());
        for (RocksDbState state : states.all()) {
            metaInfos.add(state.metaInfo());
            all.add(state.column());
        }
        byte[] stateMetaData = IncrementalMetaData.encode(keySerializer, metaInfos);
        if (changelog.canAppend(stateMetaData)) {
            Path local = localInstances ? target.resolveSibling(target.getFileName() + "-local") : null;
            try {
                changelog.linkCheckpoint(target);
                if (local != null) {
                    createRocksDbCheckpoint(local, all);
                }
            } catch (IOException | RocksDBException e) {
                RocksDbInstance.deleteDirectory(target);
                if (local != null) {
                    RocksDbInstance.deleteDirectory(local);
                }
                throw new RocksDbStateException("Could not link the changelog checkpoint " + target + " of "
                        + instance.owner() + " for checkpoint " + checkpointId + ": " + e.getMessage(), e);
            }
            return new RocksDbIncrementalSnapshot(this, checkpointId, target, stateMetaData, confirmedUploads, local);
        }
        try {
            createRocksDbCheckpoint(target, all);
            changelog.rebase(target, stateMetaData, states.columns());
        } catch (RocksDBException | IOException e) {
            RocksDbInstance.deleteDirectory(target);
            throw new RocksDbStateException("RocksDB could not create the local checkpoint " + target + " of "
                    + instance.owner() + " for checkpoint " + checkpointId + ": " + e.getMessage(), e);
        }
        return new RocksDbIncrementalSnapshot(this, checkpointId, target, stateMetaData, confirmedUploads, null);
    }

    /** Flushes the write buffers of {@code columns} and creates a RocksDB checkpoint (hard links) at {@code target}. */
    private void createRocksDbCheckpoint(Path target, List<ColumnFamilyHandle> columns)
            throws RocksDBException, IOException {
        RocksDB db = instance.db();
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true);
             Checkpoint checkpoint = Checkpoint.create(db)) {
            db.flush(flush, columns);
            Files.createDirectories(target.getParent());
            checkpoint.createCheckpoint(target.toString());
        }
    }

    /**
     * After a restore of this job's own checkpoint of exactly this backend's key groups: that checkpoint's
     * shared files, which the next checkpoint refers to instead of uploading them again, as if this task had
     * confirmed that checkpoint (it is retained until a newer one completes, and the registry keeps a file as
     * long as a retained checkpoint refers to it). Without this the first checkpoint after every task or
     * job-manager failover uploaded the whole state again (4.2 GB of a 4 GB state, seen by the large-state
     * benchmark). Task thread, before the first snapshot; nothing for an empty map.
     */
    void adoptRestored(Map<String, IncrementalStateHandle.StateFile> restoredSharedFiles) {
        if (!restoredSharedFiles.isEmpty()) {
            confirmedUploads = Map.copyOf(restoredSharedFiles);
        }
    }

    /** I/O thread: what checkpoint {@code checkpointId}'s upload refers to, until it is confirmed. */
    void uploaded(long checkpointId, Map<String, IncrementalStateHandle.StateFile> tableFiles, long newBytes) {
        pendingUploads.put(checkpointId, Map.copyOf(tableFiles));
        lastUploadedBytes = newBytes;
    }

    /**
     * Later checkpoints may refer to the table files of {@code checkpointId}: it completed. Those of
     * aborted or older checkpoints are forgotten. A confirmation that arrives after a snapshot for a
     * later checkpoint was taken is not adopted (see {@link RocksDbKeyedStateBackend#notifyCheckpointComplete}).
     */
    void notifyCheckpointComplete(long checkpointId) {
        Map<String, IncrementalStateHandle.StateFile> files = pendingUploads.remove(checkpointId);
        if (files != null && lastSnapshotId <= checkpointId) {
            confirmedUploads = files;
        }
        pendingUploads.keySet().removeIf(id -> id < checkpointId);
    }

    boolean incremental() {
        return incremental;
    }

    long lastUploadedBytes() {
        return lastUploadedBytes;
    }

    KeyGroupRange keyGroupRange() {
        return range;
    }

    int maxParallelism() {
        return maxParallelism;
    }

    String owner() {
        return instance.owner();
    }

    FileTransfers transfers() {
        return transfers;
    }

    /** Writes the local checkpoint at {@code snapshotDirectory} in the canonical format (read-only). */
    void writeCanonical(Path snapshotDirectory, byte[] stateMetaData, KeyedSnapshotOutput out) {
        IncrementalMetaData meta = IncrementalMetaData.decode(stateMetaData);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        if (!instance.enter()) {
            throw new IllegalStateException("The RocksDB state of " + instance.owner() + " was closed");
        }
        try (RocksDB source = instance.openReadOnly(snapshotDirectory, meta.states(), handles);
             ReadOptions read = new ReadOptions().setFillCache(false)) {
            try {
                RocksDbFullSnapshot.write(out, source, handles.subList(1, handles.size()), read, range, maxParallelism,
                        meta.keySerializer(), meta.states(), () -> { });
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not read the local checkpoint " + snapshotDirectory + " of "
                    + instance.owner() + ": " + e.getMessage(), e);
        } finally {
            instance.exit();
        }
    }
}
