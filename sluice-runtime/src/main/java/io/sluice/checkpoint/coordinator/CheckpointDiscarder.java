package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.checkpoint.TaskStateHandle;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the files of checkpoints that are no longer needed: aborted and failed ones, and those
 * a newer completed checkpoint subsumed. The one exception is the checkpoint the current
 * deployment restores from ({@link RestoreCheckpointPin}): its discard waits until the new tasks
 * have read it. Remembers the last {@value #ABORTED_MEMORY} aborted checkpoints, so that a task's
 * upload into one of them that arrives late is removed too.
 *
 * <p>Threading: the job master's main thread (checked), except {@link #discardOnThisThread}; the
 * deletes themselves run on the I/O executor. A failed delete is logged, never retried: the files
 * stay behind, and the job is unaffected.
 */
final class CheckpointDiscarder {
    private static final Logger LOG = LoggerFactory.getLogger(CheckpointDiscarder.class);
    /** How many aborted checkpoint ids are remembered for late uploads (tasks upload at most one behind). */
    private static final int ABORTED_MEMORY = 16;

    private final JobId jobId;
    private final CheckpointStorage storage;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final RestoreCheckpointPin restorePin = new RestoreCheckpointPin();
    /** Which shared files (incremental checkpoints) a discard deletes. */
    private final SharedStateRegistry sharedState;
    /** Recently aborted checkpoint ids, oldest first. */
    private final LinkedHashSet<Long> aborted = new LinkedHashSet<>();
    /** The checkpoint the current deployment restores from, -1 for none. */
    private long restoredCheckpointId = -1;

    CheckpointDiscarder(JobId jobId, CheckpointStorage storage, MainThreadExecutor mainThread, Executor ioExecutor,
                        SharedStateRegistry sharedState) {
        this.sharedState = sharedState;
        this.jobId = jobId;
        this.storage = storage;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
    }

    /**
     * Deletes the files of {@code checkpointId} on the I/O executor, and the shared files only it
     * referred to ({@link SharedStateRegistry#release}).
     */
    void discardAsync(long checkpointId) {
        discardAsync(checkpointId, List.of());
    }

    /**
     * Deletes the files of {@code checkpointId}, which will not complete, with the shared files its
     * acknowledgements {@code handles} uploaded that no completed checkpoint refers to.
     */
    void discardAsync(long checkpointId, java.util.Collection<TaskStateHandle> handles) {
        mainThread.assertRunningInMainThread();
        List<String> shared = new java.util.ArrayList<>(sharedState.release(checkpointId));
        shared.addAll(sharedState.unregistered(handles));
        ioExecutor.execute(() -> {
            discardOnThisThread(checkpointId);
            deleteShared(shared);
        });
    }

    /**
     * Deletes shared files no checkpoint refers to; a failed delete is logged and the file stays among the
     * registry's {@linkplain SharedStateRegistry#deleting() deletes to repeat} (a new leader repeats it);
     * the successful ones are confirmed to the registry on the main thread. Not on a main thread.
     */
    void deleteShared(List<String> files) {
        if (files.isEmpty()) {
            return;
        }
        List<String> done = new java.util.ArrayList<>(files.size());
        for (String file : files) {
            try {
                storage.deleteFile(file);
                done.add(file);
            } catch (RuntimeException e) {
                LOG.warn("Could not delete the shared state file {} of job {} from {}; it stays behind until a new"
                        + " job manager leads the job: {}", file, jobId, storage.location(), e.toString());
            }
        }
        try {
            mainThread.execute(() -> sharedState.deleted(done));
        } catch (RuntimeException e) {
            LOG.debug("Job {}: the job master ended before {} shared file delete(s) were confirmed", jobId, done.size());
        }
    }

    /**
     * Deletes the files of {@code checkpointId} on the calling thread, which must not be a main
     * thread: for the I/O thread that finds the job's store shut down, when the job master's main
     * thread may not run anything any more.
     */
    void discardOnThisThread(long checkpointId) {
        try {
            storage.discard(jobId, checkpointId);
        } catch (RuntimeException e) {
            LOG.warn("Could not discard checkpoint {} of job {} from {}; its files stay behind: {}",
                    checkpointId, jobId, storage.location(), e.toString());
        }
    }

    /** Checkpoints a newer one subsumed: discarded now, or once the restore from it finished. */
    void discardSubsumed(List<Long> subsumed) {
        mainThread.assertRunningInMainThread();
        for (Long id : subsumed) {
            if (restorePin.mayDiscardNow(id)) {
                discardAsync(id);
            } else {
                LOG.info("Checkpoint {} of job {} is subsumed, but the current deployment is still restoring"
                        + " from it: its files are discarded once its tasks have restored", id, jobId);
            }
        }
    }

    /** {@code checkpointId} was aborted: a late upload into it is removed ({@link #discardLateUpload}). */
    void rememberAborted(long checkpointId) {
        mainThread.assertRunningInMainThread();
        aborted.add(checkpointId);
        if (aborted.size() > ABORTED_MEMORY) {
            aborted.remove(aborted.iterator().next());
        }
    }

    /** An acknowledgement of a checkpoint that is not pending: if it was aborted, its uploaded file goes again. */
    void discardLateUpload(long checkpointId, TaskStateHandle handle) {
        mainThread.assertRunningInMainThread();
        if (aborted.contains(checkpointId) && handle != null && (handle.stateFile() != null || handle.isIncremental())) {
            discardAsync(checkpointId, List.of(handle));
        }
    }

    /** A deployment restores from {@code checkpointId}: kept until {@link #restoreFinished()}. */
    void restoreStarting(long checkpointId) {
        mainThread.assertRunningInMainThread();
        restoredCheckpointId = checkpointId;
        restorePin.pin(checkpointId).forEach(this::discardAsync);
    }

    /** No task reads its restore checkpoint any more: a postponed discard runs now. Idempotent. */
    void restoreFinished() {
        mainThread.assertRunningInMainThread();
        restorePin.release().forEach(this::discardAsync);
    }

    /** The checkpoint the current deployment restored from, -1 for none. */
    long restoredCheckpointId() {
        mainThread.assertRunningInMainThread();
        return restoredCheckpointId;
    }

    /** Subsumed checkpoints whose discard waits for a restore to finish, ascending. */
    List<Long> postponed() {
        mainThread.assertRunningInMainThread();
        return restorePin.postponed();
    }
}
