package io.sluice.taskexecutor;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.graph.JobId;
import io.sluice.state.CheckpointFiles;
import java.nio.file.Path;

/**
 * The files of one subtask's incremental checkpoint in checkpoint storage: shared files under the
 * job's {@code shared/} directory with unique names that start with the checkpoint's id, its own files in
 * the checkpoint's directory (deleted with it); downloads from anywhere ({@link io.sluice.checkpoint.StateFileStreams#download}, full locations too).
 *
 * <p>Threading: the thread that uploads or restores the snapshot; blocking.
 */
final class StorageCheckpointFiles implements CheckpointFiles {
    private final CheckpointStorage storage;
    private final JobId jobId;
    private final long checkpointId;
    private final int vertexId;
    private final int subtask;
    private final UploadedFiles written;

    /** @param written where each upload's path is recorded, for deleting them should the upload fail */
    StorageCheckpointFiles(CheckpointStorage storage, JobId jobId, long checkpointId, int vertexId, int subtask,
                           UploadedFiles written) {
        this.storage = storage;
        this.jobId = jobId;
        this.checkpointId = checkpointId;
        this.vertexId = vertexId;
        this.subtask = subtask;
        this.written = written;
    }

    @Override
    public String uploadShared(Path file, String localName) {
        return written.add(storage.writeSharedFile(jobId, checkpointId, vertexId, subtask, localName, file));
    }

    @Override
    public String uploadPrivate(Path file, String localName) {
        return written.add(storage.writePrivateFile(jobId, checkpointId, vertexId, subtask, localName, file));
    }

    @Override
    public void download(String path, Path target) {
        storage.streams().download(path, target);
    }
}
