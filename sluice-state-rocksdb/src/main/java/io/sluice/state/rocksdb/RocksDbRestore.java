package io.sluice.state.rocksdb;

import io.sluice.api.errors.MaxParallelismMismatchException;
import io.sluice.api.errors.StateTypeChangedException;
import io.sluice.core.serialization.SerializerIdentity;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.state.CheckpointFiles;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.KeyGroupRange;
import io.sluice.state.KeyedSnapshotInput;
import io.sluice.state.KeyedSnapshotReader;
import io.sluice.state.StateMetaInfo;
import io.sluice.util.Clock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The restore of a {@link RocksDbKeyedStateBackend}, once, before any state is registered: from
 * canonical snapshots (of any backend) entry by entry, or from incremental handles by adopting a
 * downloaded RocksDB instance (clipped to this backend's key groups), by importing the table files of
 * downloaded instances that hold only this backend's key groups, or by copying this backend's key
 * groups out of the others; a changelog checkpoint's segments are replayed onto its base, unless this task executor
 * kept the checkpoint's whole instance ({@link LocalInstance}).
 *
 * <p>Threading: task thread only; it downloads with helpers of the task executor's transfer pool, which call only
 * {@link CheckpointFiles#download}.
 */
final class RocksDbRestore {
    private static final Logger LOG = LoggerFactory.getLogger(RocksDbRestore.class);

    private final RocksDbInstance instance;
    private final RocksDbStates states;
    private final RocksDbKeys keys;
    private final KeyGroupRange range;
    private final int maxParallelism;
    private final RocksDbChangelog changelog;
    /** Times the replay, for the log. */
    private final Clock clock;
    /** Downloads a restore's files, several at a time. */
    private final FileTransfers transfers;
    /** Changelog writes the restore replayed (for tests). */
    private long replayedWrites;
    /** Whether the restore opened a task-local instance of a changelog checkpoint ({@link LocalInstance}). */
    private boolean restoredLocalInstance;

    RocksDbRestore(RocksDbInstance instance, RocksDbStates states, RocksDbKeys keys, KeyGroupRange range,
                   int maxParallelism, RocksDbChangelog changelog, Clock clock, FileTransfers transfers) {
        this.clock = clock;
        this.transfers = transfers;
        this.changelog = changelog;
        this.instance = instance;
        this.states = states;
        this.keys = keys;
        this.range = range;
        this.maxParallelism = maxParallelism;
    }

    /**
     * Restores from canonical snapshots (any key-group range of the same max parallelism): keeps the
     * groups of this backend's range, writes them in batches; the states are registered with the
     * snapshots' serializers.
     */
    void restore(List<KeyedSnapshotInput> snapshots) {
        try (RestoreBatch batch = new RestoreBatch(instance)) {
            KeyedSnapshotReader reader = new KeyedSnapshotReader(range, maxParallelism, metaInfo -> {
                RocksDbState state = states.get(metaInfo.name());
                if (state == null) {
                    state = states.create(metaInfo);
                } else {
                    RocksDbStates.requireSameKind(state.metaInfo(), metaInfo, " in another snapshot of this restore");
                }
                RocksDbState target = state;
                return (keyGroup, key, value) -> target.restore(batch, keys.keyBytes(keyGroup, key), value);
            });
            for (int i = 0; i < snapshots.size(); i++) {
                reader.readSnapshot(snapshots.get(i), i);
            }
            batch.flush();
        }
    }

    /**
     * Restores from incremental handles: downloads each handle's files and, when one handle holds all
     * of this backend's key groups, makes its instance this backend's own and deletes the key groups
     * outside this backend's range (clipping); otherwise imports the table files of each downloaded
     * instance that holds only key groups of this backend ({@link TableFileImport}) and copies this
     * backend's key groups out of the others, as bytes, group by group.
     *
     * @return the shared files the next checkpoint may refer to instead of uploading them again (local name to
     *         file): the restored handle's, when it is this job's own checkpoint of exactly this backend's key
     *         groups (the instance is then the one those files describe); else none
     */
    Map<String, IncrementalStateHandle.StateFile> restoreIncremental(List<IncrementalStateHandle> handles,
                                                                     CheckpointFiles files) {
        for (IncrementalStateHandle h : handles) {
            requireSameMaxParallelism(h);
        }
        List<Path> downloaded = new ArrayList<>();
        List<List<Path>> segments = new ArrayList<>();
        try {
            for (int i = 0; i < handles.size(); i++) {
                Path target = instance.snapshotsDirectory().resolve("restore-" + i + "-" + UUID.randomUUID());
                downloaded.add(target);
                downloaded.add(target.resolveSibling(target.getFileName() + "-changelog"));
            }
            download(handles, files, downloaded);
            for (int i = 0; i < handles.size(); i++) {
                segments.add(RocksDbChangelogReplay.takeSegments(downloaded.get(2 * i), downloaded.get(2 * i + 1)));
            }
            IncrementalStateHandle first = handles.get(0);
            if (handles.size() == 1 && first.keyGroupRange().start() <= range.start()
                    && range.end() <= first.keyGroupRange().end()) {
                IncrementalMetaData meta = IncrementalMetaData.decode(first.stateMetaData());
                boolean own = files.restoringOwnCheckpoint() && first.keyGroupRange().equals(range);
                if (own) {
                    changelog.resume(downloaded.get(0), segments.get(0), first.stateMetaData());
                }
                Path local = instance.snapshotsDirectory().resolve("restore-local-" + UUID.randomUUID());
                if (own && !segments.get(0).isEmpty() && LocalInstance.restore(files, local)) {
                    // This task executor kept the whole instance of that changelog checkpoint: nothing to replay.
                    adoptInstance(local, meta);
                    restoredLocalInstance = true;
                    LOG.info("Opened the task-local instance of the restored changelog checkpoint of {} (key groups"
                            + " {}) instead of replaying its {} changelog segments", instance.owner(), range,
                            segments.get(0).size());
                } else {
                    adoptInstance(downloaded.get(0), meta);
                    clipTo(first.keyGroupRange());
                    replay(segments.get(0), meta, first.keyGroupRange());
                }
                if (own) {
                    changelog.resumed(states.columns());
                    Map<String, IncrementalStateHandle.StateFile> reusable = new HashMap<>();
                    first.sharedFiles().forEach(f -> reusable.put(f.localName(), f));
                    return reusable;
                }
            } else {
                for (IncrementalStateHandle h : handles) {
                    requireSameKeySerializer(IncrementalMetaData.decode(h.stateMetaData()));
                }
                List<Path> instances = new ArrayList<>();
                for (int i = 0; i < handles.size(); i++) {
                    instances.add(downloaded.get(2 * i));
                }
                Set<Integer> toCopy = new TableFileImport(instance, states, range)
                        .importWherePossible(instances, handles);
                for (int i : new TreeSet<>(toCopy)) {
                    copyKeyGroups(instances.get(i), handles.get(i));
                }
                for (int i = 0; i < handles.size(); i++) {
                    replay(segments.get(i), IncrementalMetaData.decode(handles.get(i).stateMetaData()),
                            handles.get(i).keyGroupRange());
                }
                LOG.info("Restored the RocksDB state of {} (key groups {}) from {} instances: {} by importing their"
                        + " table files, {} by copying their entries", instance.owner(), range, handles.size(),
                        handles.size() - toCopy.size(), toCopy.size());
            }
            return Map.of();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not restore the RocksDB state of " + instance.owner() + ": "
                    + e.getMessage(), e);
        } finally {
            downloaded.forEach(RocksDbInstance::deleteDirectory);
        }
    }

    /**
     * Replays the changelog segments of a restored changelog checkpoint ({@link RocksDbChangelog}) whose states
     * {@code meta} describes, keeping the writes to this backend's key groups.
     */
    private void replay(List<Path> segments, IncrementalMetaData meta, KeyGroupRange written) {
        if (segments.isEmpty()) {
            return;
        }
        List<org.rocksdb.ColumnFamilyHandle> columns = new ArrayList<>();
        for (StateMetaInfo info : meta.states()) {
            RocksDbState state = states.get(info.name());
            columns.add((state != null ? state : states.create(info)).column());
        }
        long start = clock.nanoTime();
        long applied = new RocksDbChangelogReplay(instance, range).replay(segments, columns, written);
        replayedWrites += applied;
        LOG.info("Replayed {} changelog segments ({} writes) onto the restored RocksDB state of {} (key groups {}) in"
                + " {} ms", segments.size(), applied, instance.owner(), range, (clock.nanoTime() - start) / 1_000_000);
    }

    long replayedWrites() {
        return replayedWrites;
    }

    boolean restoredLocalInstance() {
        return restoredLocalInstance;
    }

    private void requireSameMaxParallelism(IncrementalStateHandle h) {
        if (h.maxParallelism() != maxParallelism) {
            throw new MaxParallelismMismatchException("The incremental checkpoint state of key"
                    + " groups " + h.keyGroupRange() + " was written with max parallelism " + h.maxParallelism()
                    + ", but this job has max parallelism " + maxParallelism + ": keys map to different key groups,"
                    + " so the state cannot be restored. Set the max parallelism back to " + h.maxParallelism()
                    + " (pipeline.max-parallelism or setMaxParallelism)", h.maxParallelism(), maxParallelism);
        }
    }

    /**
     * Downloads the files of every handle, the {@code i}-th handle's into {@code directories.get(2 * i)}, several at a
     * time ({@link FileTransfers}: a restore from storage is one file's round trip after the other otherwise).
     */
    private void download(List<IncrementalStateHandle> handles, CheckpointFiles files, List<Path> directories)
            throws IOException {
        List<Map.Entry<IncrementalStateHandle.StateFile, Path>> all = new ArrayList<>();
        for (int i = 0; i < handles.size(); i++) {
            Path target = Files.createDirectories(directories.get(2 * i));
            handles.get(i).sharedFiles().forEach(f -> all.add(Map.entry(f, target.resolve(f.localName()))));
            handles.get(i).privateFiles().forEach(f -> all.add(Map.entry(f, target.resolve(f.localName()))));
        }
        transfers.map(all, file -> {
            files.download(file.getKey().path(), file.getValue());
            return file.getValue();
        });
    }

    /** Replaces the (empty) open instance by the downloaded one and registers the states it holds. */
    private void adoptInstance(Path downloaded, IncrementalMetaData meta) {
        requireSameKeySerializer(meta);
        instance.replaceWith(downloaded, meta.states(), handles -> {
            for (int i = 0; i < meta.states().size(); i++) {
                states.adopt(meta.states().get(i), handles.get(i));
            }
        });
    }

    /**
     * Deletes the key groups of {@code restoredRange} outside this backend's range, in every state: first the
     * table files that hold only such groups (dropped at once, so neither compactions nor the next checkpoint
     * carry them), then, with range deletions, what is left of them in the files that straddle the boundary.
     */
    private void clipTo(KeyGroupRange restoredRange) {
        List<byte[]> outside = new ArrayList<>();
        if (restoredRange.start() < range.start()) {
            outside.add(RocksDbKeys.groupPrefix(restoredRange.start()));
            outside.add(RocksDbKeys.groupPrefix(range.start()));
        }
        if (restoredRange.end() > range.end()) {
            outside.add(RocksDbKeys.groupPrefix(range.end() + 1));
            outside.add(RocksDbKeys.groupPrefix(restoredRange.end() + 1));
        }
        if (outside.isEmpty()) {
            return;
        }
        RocksDB db = instance.db();
        for (RocksDbState state : states.all()) {
            try {
                db.deleteFilesInRanges(state.column(), outside, false);
                for (int i = 0; i < outside.size(); i += 2) {
                    db.deleteRange(state.column(), instance.writeOptions, outside.get(i), outside.get(i + 1));
                }
            } catch (RocksDBException e) {
                throw instance.failure("drop the key groups outside " + range + " of state '" + state.name() + "'", e);
            }
        }
    }

    /** Copies this backend's key groups out of the downloaded instance at {@code downloaded}, entry by entry. */
    private void copyKeyGroups(Path downloaded, IncrementalStateHandle handle) {
        IncrementalMetaData meta = IncrementalMetaData.decode(handle.stateMetaData());
        KeyGroupRange groups = range.intersection(handle.keyGroupRange());
        if (groups.size() == 0) {
            return;
        }
        int from = groups.start();
        int to = groups.end();
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (RocksDB source = instance.openReadOnly(downloaded, meta.states(), handles);
             ReadOptions read = new ReadOptions().setFillCache(false);
             RestoreBatch batch = new RestoreBatch(instance)) {
            try {
                for (int i = 0; i < meta.states().size(); i++) {
                    copyState(source, handles.get(i + 1), read, meta.states().get(i), from, to, batch);
                }
                batch.flush();
            } finally {
                handles.forEach(ColumnFamilyHandle::close);
            }
        } catch (RocksDBException e) {
            throw new RocksDbStateException("Could not read the restored RocksDB files " + downloaded + " for "
                    + instance.owner() + ": " + e.getMessage(), e);
        }
    }

    /** Copies key groups {@code from..to} of one state of {@code source} into this backend's state of that name. */
    private void copyState(RocksDB source, ColumnFamilyHandle column, ReadOptions read, StateMetaInfo info, int from,
                           int to, RestoreBatch batch) {
        RocksDbState state = states.get(info.name());
        if (state == null) {
            state = states.create(info);
        }
        byte[] end = RocksDbKeys.groupPrefix(to + 1);
        try (RocksIterator it = source.newIterator(column, read)) {
            for (it.seek(RocksDbKeys.groupPrefix(from)); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (Arrays.compareUnsigned(key, end) >= 0) {
                    break;
                }
                batch.put(state.column(), key, it.value());
            }
        }
    }

    private void requireSameKeySerializer(IncrementalMetaData meta) {
        TypeSerializer<Object> keySerializer = keys.keySerializer();
        SerializerIdentity written = meta.keySerializer().identity();
        SerializerIdentity now = keySerializer.identity();
        boolean same = written == null || now == null ? meta.keySerializer().getClass() == keySerializer.getClass()
                : written.equals(now);
        if (!same) {
            throw new StateTypeChangedException("The keys of " + instance.owner() + "'s incremental checkpoint"
                    + " state were written with key serializer " + meta.keySerializer().typeName() + ", but the job now"
                    + " keys by " + keySerializer.typeName() + ": RocksDB's files hold the keys' bytes, so they cannot be"
                    + " read. Restore from a savepoint (the canonical format re-reads the keys), or key as before");
        }
    }
}
