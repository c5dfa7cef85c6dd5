package io.sluice.taskexecutor;

import io.sluice.api.errors.UnrecoverableJobException;
import io.sluice.api.source.SourceReader;
import io.sluice.api.source.SubtaskPosition;
import io.sluice.checkpoint.CheckpointFailureReason;
import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.CorruptCheckpointException;
import io.sluice.checkpoint.KeyedStateRestoreException;
import io.sluice.checkpoint.StateRestoreException;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.core.serialization.Serializers;
import io.sluice.core.serialization.TypeSerializer;
import io.sluice.graph.JobVertex;
import io.sluice.graph.VertexPayload;
import io.sluice.protocol.TaskDeploymentDescriptor;
import io.sluice.protocol.TaskRestore;
import io.sluice.state.KeyGroups;
import io.sluice.state.KeyedSnapshotInput;
import io.sluice.state.KeyedStateBackend;
import io.sluice.state.UnreadableSnapshotException;
import io.sluice.util.Clock;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Restores one subtask from the checkpoint its deployment names ({@link TaskRestore}): the keyed
 * state into a new backend from the {@link KeyedStateBackendFactory}, the source reader's position,
 * and what the operators learn (the restored checkpoint's id; whether the subtask had finished).
 *
 * <p>Where keyed state comes from, per handle: inline bytes as they are (no I/O), else the
 * task-local copy this very subtask wrote for that checkpoint, else the state file read from
 * checkpoint storage (checked against its checksum and the size the metadata records). An unusable
 * snapshot — a corrupt state file or one that cannot be decoded — fails with a
 * {@link StateRestoreException} naming the checkpoint, the subtask and the file, so that the job
 * master falls back to an older checkpoint; an unreachable storage fails with the storage error,
 * to be retried.
 *
 * <p>Threads: the task thread, while {@code DEPLOYING} (checked).
 */
final class TaskStateRestore {
    private static final Logger LOG = LoggerFactory.getLogger(TaskStateRestore.class);

    private final String taskName;
    /** What to restore from, or {@code null}: the subtask starts from scratch. */
    private final TaskRestore restore;
    private final CheckpointStorage storage;
    private final SubtaskLocalState localState;
    private final TaskThread taskThread;

    TaskStateRestore(String taskName, TaskRestore restore, CheckpointStorage storage, SubtaskLocalState localState,
                     TaskThread taskThread) {
        this.taskName = taskName;
        this.restore = restore;
        this.storage = storage;
        this.localState = localState;
        this.taskThread = taskThread;
    }

    /** The checkpoint this subtask restores from, or empty for a fresh start. */
    OptionalLong restoredCheckpointId() {
        return restore == null ? OptionalLong.empty() : OptionalLong.of(restore.checkpointId());
    }

    /**
     * Each operator's own state in the restored checkpoint (by chain index; null for none): inline bytes as
     * they are, or read from its {@code .opstate} file in checkpoint storage. Task thread.
     */
    io.sluice.operators.OperatorStateRestore[] operatorStates(int operatorCount) {
        return OperatorStates.restoresFor(restore, operatorCount, h -> h.operatorState() != null ? h.operatorState()
                : storage.readTaskState(h.operatorStateFile()), taskName);
    }

    /** The checkpoint restored from if another job than {@code jobId} wrote it; else null. */
    io.sluice.api.functions.RestoredCheckpoint restoredFrom(String jobId) {
        if (restore == null || restore.checkpointJobId() == null || restore.checkpointJobId().equals(jobId)) {
            return null;
        }
        return new io.sluice.api.functions.RestoredCheckpoint(restore.checkpointJobId(), restore.checkpointId());
    }

    /** Whether the subtask had finished in the restored checkpoint: it emits nothing and ends its outputs at once. */
    boolean restoredAsFinished() {
        return restore != null && restore.finished();
    }

    /** What the factory is told about the backend of {@code tdd}'s subtask. */
    static KeyedStateBackendSpec backendSpec(TaskDeploymentDescriptor tdd, VertexPayload payload, ClassLoader classLoader,
                                             Clock clock) {
        JobVertex vertex = tdd.vertex();
        TypeSerializer<?> keySerializer = payload.inputKeySerializer() != null
                ? payload.inputKeySerializer() : Serializers.dynamic();
        return new KeyedStateBackendSpec(TaskInfo.of(tdd).taskName(), tdd.jobGraph().jobId(), tdd.jobGraph().config(),
                vertex.id(), tdd.subtaskIndex(),
                KeyGroups.rangeForSubtask(tdd.subtaskIndex(), vertex.maxParallelism(), vertex.parallelism()),
                vertex.maxParallelism(), keySerializer, classLoader, clock);
    }

    /** A new keyed state backend from {@code factory}, holding the restored keyed state if there is any. */
    KeyedStateBackend keyedStateBackend(KeyedStateBackendFactory factory, KeyedStateBackendSpec spec) {
        taskThread.check("Restoring keyed state");
        KeyedStateBackend backend = factory.create(spec);
        if (restore != null && !restore.keyedStateHandles().isEmpty()) {
            try {
                restoreKeyedState(backend, spec.jobId().value());
            } catch (RuntimeException e) {
                backend.close(); // restored in part: its local files and native memory go now, not with the JVM
                throw e;
            }
        }
        return backend;
    }

    /**
     * Puts the reader at the restored position, if the checkpoint has one for this subtask; after a rescale,
     * gives it every old subtask's position to take its share from.
     */
    void restoreSourcePosition(SourceReader<?> reader) throws Exception {
        taskThread.check("Restoring the source position");
        if (restore == null) {
            return;
        }
        if (!restore.rescaledSourceStates().isEmpty()) {
            List<TaskStateHandle> old = restore.rescaledSourceStates();
            int parallelism = old.get(old.size() - 1).subtaskIndex() + 1;
            List<SubtaskPosition> previous = new ArrayList<>(old.size());
            for (TaskStateHandle h : old) {
                if (!h.isFinished() && h.sourcePosition() == null) {
                    throw new IllegalStateException(taskName + ": checkpoint " + restore.checkpointId() + " has no source"
                            + " position for subtask " + h.subtaskIndex() + " of " + parallelism + ", which had not"
                            + " finished; its records cannot be redistributed");
                }
                previous.add(new SubtaskPosition(h.subtaskIndex(), parallelism, h.isFinished() ? null : h.sourcePosition()));
            }
            LOG.info("{}: restoring the source's share of {} positions of parallelism {} (checkpoint {})", taskName,
                    previous.size(), parallelism, restore.checkpointId());
            reader.restoreRescaledPositions(previous);
        } else if (restore.sourcePosition() != null) {
            reader.restorePosition(restore.sourcePosition());
        }
    }

    private void restoreKeyedState(KeyedStateBackend backend, String jobId) {
        List<TaskStateHandle> handles = restore.keyedStateHandles();
        if (handles.stream().anyMatch(TaskStateHandle::isIncremental)) {
            restoreIncremental(backend, handles, jobId.equals(restore.checkpointJobId()));
            return;
        }
        int[] reading = {-1}; // which handle's stream the backend is reading, to name a corrupt file
        List<KeyedSnapshotInput> snapshots = new ArrayList<>(handles.size());
        for (int i = 0; i < handles.size(); i++) {
            snapshots.add(inputOf(handles.get(i), i, reading));
        }
        try {
            backend.restoreFrom(snapshots);
        } catch (UnreadableSnapshotException e) {
            throw unusableState(handles.get(e.snapshotIndex()), e);
        } catch (CorruptCheckpointException e) {
            // a state file's header, length or checksum (checked as it is streamed) is wrong
            throw unusableState(handles.get(Math.max(0, reading[0])), e);
        } catch (io.sluice.storage.StorageException e) {
            throw e; // retried as a storage error (a missing file included, as before streaming)
        } catch (RuntimeException e) {
            if (UnrecoverableJobException.isCauseOf(e) || CheckpointFailureReason.isStorageFailure(e)) {
                throw e; // fails the job at once / retried as a storage error
            }
            // The restoring code itself fails on this state (a key in another key group, a serializer
            // that throws): named as a restore failure, so that repeating it is seen as one no restart fixes.
            throw new KeyedStateRestoreException(taskName, restore.checkpointId(), e);
        }
    }

    /**
     * RocksDB's files of an incremental checkpoint: downloaded by the backend, each from this subtask's
     * task-local file of that checkpoint if it has one, else from storage. A corrupt or missing
     * file is an unusable snapshot (the job master falls back), naming the file.
     */
    private void restoreIncremental(KeyedStateBackend backend, List<TaskStateHandle> handles, boolean ownCheckpoint) {
        if (!handles.stream().allMatch(TaskStateHandle::isIncremental)) {
            throw new KeyedStateRestoreException(taskName, restore.checkpointId(), new IllegalStateException(
                    "the checkpoint mixes RocksDB's files with canonical snapshots for one vertex"));
        }
        // Files restored from task-local files, files read from storage; downloads run on several threads at once.
        AtomicInteger fromLocal = new AtomicInteger();
        AtomicInteger fromStorage = new AtomicInteger();
        // Table files read from storage are kept locally when the next checkpoints may refer to them.
        boolean keepDownloads = ownCheckpoint && handles.size() == 1;
        io.sluice.state.CheckpointFiles files = new io.sluice.state.CheckpointFiles() {
            @Override
            public String uploadShared(java.nio.file.Path file, String localName) {
                throw new UnsupportedOperationException("a restore uploads nothing");
            }

            @Override
            public String uploadPrivate(java.nio.file.Path file, String localName) {
                throw new UnsupportedOperationException("a restore uploads nothing");
            }

            @Override
            public boolean restoringOwnCheckpoint() {
                return ownCheckpoint;
            }

            @Override
            public boolean restoreLocal(String name, java.nio.file.Path target, boolean link) {
                return ownCheckpoint && localState.restoreLocal(restore.checkpointId(), handles, name, target, link);
            }

            @Override
            public void download(String path, java.nio.file.Path target) {
                TaskStateHandle current = null;
                for (TaskStateHandle h : handles) {
                    if (h.incremental().sharedFiles().stream().anyMatch(f -> f.path().equals(path))
                            || h.incremental().privateFiles().stream().anyMatch(f -> f.path().equals(path))) {
                        current = h;
                    }
                }
                if (localState.restoreFile(restore.checkpointId(), current, path, target)) {
                    fromLocal.incrementAndGet();
                    return; // task-local recovery: this subtask's own local file of that checkpoint
                }
                fromStorage.incrementAndGet();
                try {
                    storage.streams().download(path, target);
                } catch (CorruptCheckpointException | io.sluice.storage.BlobNotFoundException e) {
                    throw new StateRestoreException(taskName, restore.checkpointId(), current.vertexId(),
                            current.subtaskIndex(), path, e);
                }
                if (keepDownloads) {
                    localState.keepRestored(restore.checkpointId(), current, path, target);
                }
            }
        };
        try {
            backend.restoreIncremental(handles.stream().map(TaskStateHandle::incremental).toList(), files);
            LOG.info("{}: restored RocksDB's files of checkpoint {}: {} from task-local files, {} from checkpoint"
                    + " storage", taskName, restore.checkpointId(), fromLocal.get(), fromStorage.get());
        } catch (StateRestoreException e) {
            LOG.warn(e.getMessage());
            throw e;
        } catch (RuntimeException e) {
            if (UnrecoverableJobException.isCauseOf(e) || CheckpointFailureReason.isStorageFailure(e)) {
                throw e;
            }
            throw new KeyedStateRestoreException(taskName, restore.checkpointId(), e);
        } finally {
            if (keepDownloads) {
                localState.registerRestored(restore.checkpointId(), handles);
            }
        }
    }

    private StateRestoreException unusableState(TaskStateHandle handle, Throwable cause) {
        StateRestoreException e = new StateRestoreException(taskName, restore.checkpointId(), handle.vertexId(),
                handle.subtaskIndex(), handle.stateFile(), cause);
        LOG.warn(e.getMessage());
        return e;
    }

    /**
     * The serialized snapshot behind {@code handle}: inline, a task-local file (a snapshot too large for memory)
     * or in-memory copy, or the state file, which is streamed
     * (its header checked against the size the metadata records when it is opened, its checksum at its end).
     * Opening it records {@code index} in {@code reading}.
     */
    private KeyedSnapshotInput inputOf(TaskStateHandle handle, int index, int[] reading) {
        return new KeyedSnapshotInput() {
            @Override
            public InputStream open() throws java.io.IOException {
                reading[0] = index;
                if (handle.isInline()) {
                    return new ByteArrayInputStream(handle.inlineState());
                }
                InputStream localFile = localState.openFile(restore.checkpointId(), handle);
                if (localFile != null) {
                    return localFile; // a large snapshot's task-local file
                }
                byte[] inMemory = localState.copyOf(restore.checkpointId(), handle);
                return inMemory != null ? new ByteArrayInputStream(inMemory)
                        : storage.streams().open(handle.stateFile(), handle.stateSize());
            }

            @Override
            public long length() {
                return handle.isInline() ? handle.inlineState().length : handle.stateSize();
            }
        };
    }
}
