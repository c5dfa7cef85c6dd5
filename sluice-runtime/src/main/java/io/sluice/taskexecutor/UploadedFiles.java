package io.sluice.taskexecutor;

import io.sluice.checkpoint.CheckpointStorage;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files that one upload of a subtask's checkpoint (or savepoint) state wrote to checkpoint storage, so that
 * an upload that fails or is interrupted part-way, or completes only after its task ended, deletes them itself
 * ({@link #deleteAfterFailure}).
 *
 * <p>Nobody else can: the job master aborts the checkpoint knowing only the acknowledgements it received, and a
 * shared file (a RocksDB table file) has a name no other upload uses, outside the checkpoint's directory. Without
 * this they stayed in storage until the job's checkpoints were deleted; with checkpoints retained, for ever.
 *
 * <p>Threading: {@link #add} from the thread that runs the upload and from the helpers it transfers files with
 * (a RocksDB checkpoint uploads several files at a time), {@link #paths} and {@link #deleteAfterFailure} from the
 * upload's own thread once the upload returned or threw, by which time its helpers have ended (checked: the thread).
 */
final class UploadedFiles {
    private static final Logger LOG = LoggerFactory.getLogger(UploadedFiles.class);

    private final Thread owner = Thread.currentThread();
    private final List<String> paths = new ArrayList<>();

    /** Records that {@code path} was written; returns it. Any thread of the upload. */
    String add(String path) {
        synchronized (paths) {
            paths.add(path);
        }
        return path;
    }

    /** The paths written so far, in the order they were recorded. */
    List<String> paths() {
        checkThread();
        synchronized (paths) {
            return List.copyOf(paths);
        }
    }

    /**
     * Deletes every file written so far (the upload failed, nothing refers to them) and returns how many went. The
     * first delete that fails ends it (storage that refused the upload is likely to refuse the rest, each after its
     * timeout): that file and the ones after it are logged and stay until the job's checkpoints are deleted. A
     * cancel's interrupt is put aside while deleting (a storage client may refuse to start a request on an
     * interrupted thread) and restored afterwards.
     */
    int deleteAfterFailure(CheckpointStorage storage, String taskName, long checkpointId) {
        checkThread();
        List<String> written = paths();
        if (written.isEmpty()) {
            return 0;
        }
        boolean interrupted = Thread.interrupted();
        int deleted = 0;
        try {
            for (String path : written) {
                try {
                    storage.deleteFile(path);
                    deleted++;
                } catch (RuntimeException e) {
                    LOG.warn("{}: could not delete {} from {} after the upload of checkpoint {} failed ({}); it and"
                            + " {} more file(s) of that upload stay until the job's checkpoints are deleted",
                            taskName, path, storage.location(), checkpointId, e.getMessage(),
                            written.size() - deleted - 1);
                    break;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        LOG.debug("{}: deleted {} of the {} file(s) of the failed upload of checkpoint {}", taskName, deleted,
                written.size(), checkpointId);
        synchronized (paths) {
            paths.clear();
        }
        return deleted;
    }

    private void checkThread() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("The uploaded files of one upload belong to its thread " + owner.getName()
                    + ", not " + Thread.currentThread().getName());
        }
    }
}
