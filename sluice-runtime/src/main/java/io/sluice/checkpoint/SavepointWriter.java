package io.sluice.checkpoint;

import io.sluice.rpc.MainThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Writes a savepoint: the state of a fully acknowledged checkpoint, copied out of the job's checkpoint
 * directory into a directory of its own, {@code <target>/savepoint-<first 6 digits of the job id>-<id>-<random>}.
 *
 * <p>What makes it self-contained and relocatable:
 * <ul>
 *   <li>every file it needs is inside its directory: each subtask's state file and operator state file is
 *       copied there (small state is inline in its {@code _metadata}); a savepoint never holds RocksDB's files
 *       of an incremental checkpoint nor refers to shared files (its tasks took full snapshots, in the canonical
 *       format of {@code io.sluice.state.KeyedSnapshotFormat}, which the heap and RocksDB both read);</li>
 *   <li>its {@code _metadata} is checkpoint metadata ({@link CheckpointMetadataSerializer}, versioned and
 *       checksummed) whose files are named relative to the directory: as {@code <jobId>/chk-<id>/<file>}, which a
 *       reader resolves against the directory the {@code _metadata} is read from, so the directory restores from
 *       wherever it is moved or copied;</li>
 *   <li>the {@code _metadata} is written last: a directory without it is not a savepoint (a crash half way
 *       leaves files that nothing restores from).</li>
 * </ul>
 * Savepoints are outside every job's checkpoint directory, and no retention or job clean-up deletes them.
 *
 * <p>Threading: blocking storage I/O, on an I/O thread only (checked). Stateless.
 */
public final class SavepointWriter {
    /** The prefix of every savepoint directory's name. */
    public static final String DIRECTORY_PREFIX = "savepoint-";

    private SavepointWriter() {
    }

    /**
     * Copies the state of {@code acknowledged} (its files in {@code checkpointStorage}, where its tasks wrote them)
     * into a new savepoint directory under {@code targetLocation} and writes its metadata there.
     *
     * @throws IllegalArgumentException if a handle holds incremental state (a savepoint's tasks never write it)
     *                                  or {@code targetLocation} cannot be opened
     */
    public static Savepoint write(CheckpointStorage checkpointStorage, CompletedCheckpoint acknowledged,
                                  String targetLocation) {
        MainThreads.checkNotMainThread("writing savepoint " + acknowledged.checkpointId() + " of job "
                + acknowledged.jobId());
        CheckpointStorage target = checkpointStorage.storageAt(targetLocation);
        String name = DIRECTORY_PREFIX + acknowledged.jobId().value().substring(0, 6) + "-"
                + acknowledged.checkpointId() + "-" + UUID.randomUUID().toString().substring(0, 8);
        String writtenIn = acknowledged.jobId().value() + "/chk-" + acknowledged.checkpointId() + "/";
        long[] size = {0};
        List<TaskStateHandle> handles = new ArrayList<>(acknowledged.taskStates().size());
        for (TaskStateHandle h : acknowledged.taskStates()) {
            if (h.isIncremental()) {
                throw new IllegalArgumentException("Savepoint " + acknowledged.checkpointId() + " of job "
                        + acknowledged.jobId() + ": subtask " + h.subtaskIndex() + " of vertex " + h.vertexId()
                        + " acknowledged RocksDB's files of an incremental checkpoint instead of a full snapshot");
            }
            String stateFile = copied(checkpointStorage, target, name, writtenIn, h.stateFile(), size);
            String operatorStateFile = copied(checkpointStorage, target, name, writtenIn, h.operatorStateFile(), size);
            handles.add(new TaskStateHandle(h.vertexId(), h.subtaskIndex(), stateFile, h.stateSize(),
                    h.sourcePosition(), h.keyGroupRange(), h.inlineState(), h.operatorState(), operatorStateFile, null));
        }
        CompletedCheckpoint metadata = new CompletedCheckpoint(acknowledged.jobId(), acknowledged.checkpointId(),
                acknowledged.triggerTimestampMillis(), acknowledged.completionTimestampMillis(), handles, null);
        size[0] += target.writeMetadataAt(name, metadata);
        String location = target.locationOf(name);
        while (location.endsWith("/")) {
            location = location.substring(0, location.length() - 1);
        }
        return new Savepoint(acknowledged.jobId(), acknowledged.checkpointId(), location,
                acknowledged.triggerTimestampMillis(), acknowledged.completionTimestampMillis(), size[0]);
    }

    /**
     * Copies {@code file} into {@code directory} ({@link StateFileStreams#copyTo}: a hard link between local
     * directories, a copy on the server within one object store, else streamed through a local temporary file), adds
     * its bytes to {@code size}; its name in the metadata.
     */
    private static String copied(CheckpointStorage from, CheckpointStorage to, String directory, String writtenIn,
                                 String file, long[] size) {
        if (file == null) {
            return null;
        }
        String fileName = file.substring(file.lastIndexOf('/') + 1);
        size[0] += from.streams().copyTo(file, to, directory + "/" + fileName);
        return writtenIn + fileName;
    }
}
