package io.sluice.state.rocksdb;

import io.sluice.state.CheckpointFiles;
import io.sluice.state.IncrementalKeyedStateSnapshot;
import io.sluice.state.KeyedSnapshotOutput;
import io.sluice.state.IncrementalStateHandle;
import io.sluice.state.IncrementalStateHandle.StateFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * An incremental checkpoint of a {@link RocksDbKeyedStateBackend}: a RocksDB checkpoint (hard links
 * of the live files, taken on the task thread after a flush) uploaded on an I/O thread. Table files
 * ({@code .sst}) that a checkpoint this task confirmed earlier already uploaded are referred to, not
 * uploaded again; the new ones are uploaded as shared files under unique names; the manifest, current
 * and options files are this checkpoint's own. A changelog checkpoint ({@link RocksDbChangelog}) holds
 * the last materialisation's files and the changelog segments since, which are shared files too; with
 * task-local copies it also has the whole instance, flushed, which is kept locally only ({@link LocalInstance}). The
 * local directories are deleted afterwards.
 *
 * <p>Threading: created on the task thread; {@link #upload}, {@link #writeTo} or {@link #discard} on
 * any one thread, once. The hard links do not depend on the running RocksDB instance, so uploading
 * needs no guard; the backend's close deletes the directory of a snapshot not uploaded yet (its upload
 * then fails, and the checkpoint is declined).
 */
final class RocksDbIncrementalSnapshot implements IncrementalKeyedStateSnapshot {
    private final RocksDbSnapshots snapshots;
    private final long checkpointId;
    private final Path directory;
    private final byte[] stateMetaData;
    /** Table files of checkpoints this task confirmed: local name to where they are. */
    private final Map<String, StateFile> confirmed;
    /** A changelog checkpoint's whole instance as a RocksDB checkpoint, kept locally only; or {@code null}. */
    private final Path localInstance;
    private boolean done;

    RocksDbIncrementalSnapshot(RocksDbSnapshots snapshots, long checkpointId, Path directory, byte[] stateMetaData,
                               Map<String, StateFile> confirmed, Path localInstance) {
        this.localInstance = localInstance;
        this.snapshots = snapshots;
        this.checkpointId = checkpointId;
        this.directory = directory;
        this.stateMetaData = stateMetaData;
        this.confirmed = Map.copyOf(confirmed);
    }

    /**
     * Uploads the files new since the checkpoints this task confirmed, several at a time ({@link FileTransfers}),
     * and refers to the others. The handle lists the files in the order of their names, however the uploads ended.
     */
    @Override
    public IncrementalStateHandle upload(CheckpointFiles files) {
        start();
        try {
            List<Path> all = listFiles();
            StateFile[] result = new StateFile[all.size()];
            List<Integer> toUpload = new ArrayList<>();
            long newBytes = 0;
            for (int i = 0; i < all.size(); i++) {
                String name = all.get(i).getFileName().toString();
                StateFile earlier = isShared(name) ? confirmed.get(name) : null;
                if (earlier != null && earlier.size() == Files.size(all.get(i))) {
                    result[i] = earlier; // a file of that name and size uploaded before: the same file
                } else {
                    toUpload.add(i);
                }
            }
            List<StateFile> uploads = snapshots.transfers().map(toUpload, i -> {
                Path file = all.get(i);
                String name = file.getFileName().toString();
                long size = Files.size(file);
                return new StateFile(name, isShared(name) ? files.uploadShared(file, name)
                        : files.uploadPrivate(file, name), size);
            });
            for (int k = 0; k < toUpload.size(); k++) {
                result[toUpload.get(k)] = uploads.get(k);
                newBytes += uploads.get(k).size();
            }
            List<StateFile> shared = new ArrayList<>();
            List<StateFile> own = new ArrayList<>();
            Map<String, StateFile> uploaded = new HashMap<>();
            for (StateFile f : result) {
                if (isShared(f.localName())) {
                    shared.add(f);
                    uploaded.put(f.localName(), f);
                } else {
                    own.add(f);
                }
            }
            if (localInstance != null) {
                LocalInstance.keep(localInstance, files);
            }
            snapshots.uploaded(checkpointId, uploaded, newBytes);
            return new IncrementalStateHandle(snapshots.keyGroupRange(), snapshots.maxParallelism(), stateMetaData,
                    shared, own);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not read the local RocksDB checkpoint " + directory + " of "
                    + snapshots.owner() + " (the task ended?): " + e.getMessage(), e);
        } finally {
            deleteDirectories();
        }
    }

    /** Table files and changelog segments are shared by later checkpoints; the rest is this checkpoint's own. */
    private static boolean isShared(String name) {
        return name.endsWith(".sst") || RocksDbChangelog.isSegment(name);
    }

    /**
     * The snapshot in the canonical format, read from its files (a savepoint of a checkpoint); not for a changelog
     * checkpoint, whose files alone are not the state (savepoints take the canonical snapshot of the instance).
     */
    @Override
    public void writeTo(KeyedSnapshotOutput out) {
        start();
        try {
            try (Stream<Path> files = Files.list(directory)) {
                if (files.anyMatch(f -> RocksDbChangelog.isSegment(f.getFileName().toString()))) {
                    throw new IllegalStateException("Checkpoint " + checkpointId + " of " + snapshots.owner()
                            + " is a changelog checkpoint: its files are not the state without a replay, so it cannot"
                            + " be written in the canonical format; take a savepoint");
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            snapshots.writeCanonical(directory, stateMetaData, out);
        } finally {
            deleteDirectories();
        }
    }

    @Override
    public void discard() {
        if (!done) {
            done = true;
            deleteDirectories();
        }
    }

    private void deleteDirectories() {
        RocksDbInstance.deleteDirectory(directory);
        if (localInstance != null) {
            RocksDbInstance.deleteDirectory(localInstance);
        }
    }

    private void start() {
        if (done) {
            throw new IllegalStateException("Snapshot " + checkpointId + " of " + snapshots.owner()
                    + " was already uploaded, written or discarded");
        }
        done = true;
    }

    private List<Path> listFiles() throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    @Override
    public String toString() {
        return "RocksDbIncrementalSnapshot{" + snapshots.owner() + ", checkpoint " + checkpointId + ", " + directory + "}";
    }
}
