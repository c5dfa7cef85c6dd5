package io.sluice.taskexecutor;

import io.sluice.checkpoint.FramedStateFile;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import io.sluice.state.CheckpointFiles;
import io.sluice.state.IncrementalKeyedStateSnapshot;
import io.sluice.state.IncrementalStateHandle;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The task-local copies of one subtask's state files (task-local recovery), or none when the job
 * or the task executor has it off: a heap snapshot's state file in memory, the files of a RocksDB
 * incremental checkpoint as local files ({@link #upload}, {@link #restoreFile}). Thread-safe: stored
 * from upload threads, read on the task thread while restoring, trimmed when a checkpoint completes.
 */
final class SubtaskLocalState {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(SubtaskLocalState.class);
    private final TaskLocalStateStore store;
    private final JobId jobId;
    private final int vertexId;
    private final int subtaskIndex;

    /** @param store the task executor's copies, or {@code null}: this subtask keeps none */
    SubtaskLocalState(TaskLocalStateStore store, JobId jobId, int vertexId, int subtaskIndex) {
        this.store = store;
        this.jobId = jobId;
        this.vertexId = vertexId;
        this.subtaskIndex = subtaskIndex;
    }

    /** Keeps a copy of the state file {@code stateFile} just written for {@code checkpointId}. */
    void store(long checkpointId, String stateFile, byte[] data) {
        if (store != null) {
            store.store(jobId, vertexId, subtaskIndex, checkpointId, stateFile, data);
        }
    }

    /**
     * I/O thread: keeps the snapshot file {@code snapshot} (framed as a state file: {@link
     * io.sluice.checkpoint.FramedStateFile}), too large for an in-memory copy, just uploaded as {@code stateFile}
     * for {@code checkpointId}, as a local file (a hard link: the caller deletes its file next).
     */
    void storeFile(long checkpointId, String stateFile, Path snapshot) {
        if (store != null) {
            store.keepFile(jobId, vertexId, subtaskIndex, checkpointId, stateFile, snapshot, true);
            store.registerFiles(jobId, vertexId, subtaskIndex, checkpointId, List.of(stateFile));
        }
    }

    /**
     * Task thread: the payload of the local file of the full snapshot behind {@code handle} ({@link #storeFile})
     * as a stream that checks its header now and its length and checksum as it is read, and deletes its own link
     * when closed; or {@code null} when this subtask kept none of that size for the checkpoint (then nothing is
     * counted: the in-memory copies and storage are asked next); also {@code null}, with a warning, when the
     * local file's header is damaged.
     */
    InputStream openFile(long checkpointId, TaskStateHandle handle) throws java.io.IOException {
        if (store == null || handle.isInline() || handle.isIncremental() || handle.vertexId() != vertexId
                || handle.subtaskIndex() != subtaskIndex
                || !store.hasFile(jobId, vertexId, subtaskIndex, checkpointId, handle.stateFile())) {
            return null;
        }
        Path target = store.directory().resolve("restore-" + java.util.UUID.randomUUID());
        if (!store.restoreFile(jobId, vertexId, subtaskIndex, checkpointId, handle.stateFile(),
                FramedStateFile.fileSize(handle.stateSize()), target, true)) {
            return null;
        }
        InputStream in = java.nio.file.Files.newInputStream(target, java.nio.file.StandardOpenOption.DELETE_ON_CLOSE);
        try {
            return FramedStateFile.openPayload(in, "the task-local copy " + target + " of " + handle.stateFile(),
                    handle.stateSize());
        } catch (io.sluice.checkpoint.CorruptStateFileException e) {
            in.close();
            LOG.warn("Not restoring from a damaged task-local file; reading checkpoint storage instead: {}",
                    e.getMessage());
            return null;
        } catch (java.io.IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /**
     * The local copy of the state behind {@code handle}, or {@code null}: only a copy this very
     * subtask wrote for that checkpoint, with the same file name and size.
     */
    byte[] copyOf(long checkpointId, TaskStateHandle handle) {
        if (store == null || handle.vertexId() != vertexId || handle.subtaskIndex() != subtaskIndex) {
            return null;
        }
        return store.retrieve(jobId, vertexId, subtaskIndex, checkpointId, handle.stateFile(), handle.stateSize())
                .orElse(null);
    }

    /**
     * I/O thread: uploads an incremental snapshot through {@code storage} and, when this subtask keeps local
     * state, keeps a local file of each uploaded file (a hard link of a table file, a copy of the others) and
     * registers, for {@code checkpointId}, a local file for every file the returned handle names. A failed upload
     * leaves no local file behind.
     */
    IncrementalStateHandle upload(long checkpointId, IncrementalKeyedStateSnapshot snapshot, CheckpointFiles storage) {
        if (store == null) {
            return snapshot.upload(storage);
        }
        List<String> localOnly = new ArrayList<>(); // kept by keepLocal, from the upload's thread
        CheckpointFiles keeping = new CheckpointFiles() {
            @Override
            public String uploadShared(Path file, String localName) {
                String path = storage.uploadShared(file, localName);
                store.keepFile(jobId, vertexId, subtaskIndex, checkpointId, path, file, true);
                return path;
            }

            @Override
            public String uploadPrivate(Path file, String localName) {
                String path = storage.uploadPrivate(file, localName);
                store.keepFile(jobId, vertexId, subtaskIndex, checkpointId, path, file, false);
                return path;
            }

            @Override
            public void download(String path, Path target) {
                storage.download(path, target);
            }

            @Override
            public boolean restoringOwnCheckpoint() {
                return storage.restoringOwnCheckpoint();
            }

            @Override
            public boolean keepLocal(String name, Path file) {
                String key = localOnlyName(checkpointId, name);
                store.keepFile(jobId, vertexId, subtaskIndex, checkpointId, key, file, true);
                synchronized (localOnly) {
                    localOnly.add(key);
                }
                return true;
            }
        };
        IncrementalStateHandle handle;
        try {
            handle = snapshot.upload(keeping);
        } catch (RuntimeException | Error e) {
            store.abandonFiles(jobId, vertexId, subtaskIndex, checkpointId);
            throw e;
        }
        List<String> paths = new ArrayList<>();
        handle.sharedFiles().forEach(f -> paths.add(f.path()));
        handle.privateFiles().forEach(f -> paths.add(f.path()));
        synchronized (localOnly) {
            paths.addAll(localOnly);
        }
        store.registerFiles(jobId, vertexId, subtaskIndex, checkpointId, paths);
        return handle;
    }

    /**
     * Task thread, restoring checkpoint {@code checkpointId} from {@code handles}: puts the local-only file
     * {@code name} this very subtask kept for that checkpoint ({@link CheckpointFiles#keepLocal}) at {@code target},
     * hard-linked when {@code link}, and returns {@code true}; else {@code false} (none kept, or the restore is not
     * of exactly this subtask's one handle).
     */
    boolean restoreLocal(long checkpointId, List<TaskStateHandle> handles, String name, Path target, boolean link) {
        if (store == null || handles.size() != 1 || !handles.get(0).isIncremental()
                || handles.get(0).vertexId() != vertexId || handles.get(0).subtaskIndex() != subtaskIndex) {
            return false;
        }
        return store.restoreLocalOnlyFile(jobId, vertexId, subtaskIndex, checkpointId,
                localOnlyName(checkpointId, name), target, link);
    }

    /** The store's key of a local-only file: never a storage path (those are URIs or absolute paths). */
    private static String localOnlyName(long checkpointId, String name) {
        return TaskLocalStateStore.LOCAL_ONLY_PREFIX + checkpointId + "/" + name;
    }

    /**
     * A thread of the restore (its task thread, transfer helpers), restoring checkpoint {@code checkpointId}: puts
     * this subtask's local file of {@code path} (a file of {@code handle}) at {@code target} and returns
     * {@code true}, or returns {@code false}: read storage.
     * Only a file this very subtask kept for that checkpoint, of the size the handle names.
     */
    boolean restoreFile(long checkpointId, TaskStateHandle handle, String path, Path target) {
        if (store == null || handle == null || !handle.isIncremental() || handle.vertexId() != vertexId
                || handle.subtaskIndex() != subtaskIndex) {
            return false;
        }
        for (IncrementalStateHandle.StateFile f : handle.incremental().sharedFiles()) {
            if (f.path().equals(path)) {
                return store.restoreFile(jobId, vertexId, subtaskIndex, checkpointId, path, f.size(), target, true);
            }
        }
        for (IncrementalStateHandle.StateFile f : handle.incremental().privateFiles()) {
            if (f.path().equals(path)) {
                return store.restoreFile(jobId, vertexId, subtaskIndex, checkpointId, path, f.size(), target, false);
            }
        }
        return false;
    }

    /**
     * A thread of the restore (its task thread, transfer helpers), restoring this job's own checkpoint
     * {@code checkpointId}: a table file of {@code handle} (this subtask's) was just read from storage into
     * {@code target}; it is kept as a local file too (a hard link), so
     * that the checkpoints after the restore, which refer to it instead of uploading it again, have it locally.
     * Nothing for another subtask's handle or a private file; registered by {@link #registerRestored}.
     */
    void keepRestored(long checkpointId, TaskStateHandle handle, String path, Path target) {
        if (store == null || handle == null || !handle.isIncremental() || handle.vertexId() != vertexId
                || handle.subtaskIndex() != subtaskIndex) {
            return;
        }
        if (handle.incremental().sharedFiles().stream().anyMatch(f -> f.path().equals(path))) {
            store.keepFile(jobId, vertexId, subtaskIndex, checkpointId, path, target, true);
        }
    }

    /**
     * Task thread, after restoring checkpoint {@code checkpointId} (or failing to): the local files of its files,
     * those it had and those {@link #keepRestored} kept (they hold what storage held, checked), are that
     * checkpoint's.
     */
    void registerRestored(long checkpointId, List<TaskStateHandle> handles) {
        if (store == null) {
            return;
        }
        List<String> paths = new ArrayList<>();
        for (TaskStateHandle h : handles) {
            if (h.isIncremental() && h.vertexId() == vertexId && h.subtaskIndex() == subtaskIndex) {
                h.incremental().sharedFiles().forEach(f -> paths.add(f.path()));
                h.incremental().privateFiles().forEach(f -> paths.add(f.path()));
            }
        }
        store.registerFiles(jobId, vertexId, subtaskIndex, checkpointId, paths);
    }

    /** Whether this subtask keeps local copies (task-local recovery is on for its job). */
    boolean enabled() {
        return store != null;
    }

    /** Checkpoint {@code checkpointId} completed: older copies are no longer needed. Not a main thread (file I/O). */
    void confirm(long checkpointId) {
        if (store != null) {
            store.confirm(jobId, vertexId, subtaskIndex, checkpointId);
        }
    }
}
