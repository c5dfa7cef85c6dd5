package io.sluice.checkpoint.coordinator;

import io.sluice.checkpoint.CheckpointStorage;
import io.sluice.checkpoint.SharedStateRegistry;
import io.sluice.graph.JobId;
import io.sluice.rpc.MainThreadExecutor;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.LongPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds and deletes the shared files that tasks uploaded for checkpoints that never completed and that no
 * acknowledgement ever named: a task manager killed while it uploaded, or a job manager that lost leadership
 * while a checkpoint was pending. Nothing else hears of these files ({@link CheckpointDiscarder} deletes the
 * uploads that acknowledgements name, a task deletes what a failed upload wrote), and without this they stayed
 * until the job's checkpoints were discarded: for a job that runs for months, one checkpoint's new table files
 * per crash.
 *
 * <p>Every shared upload's name starts with the id of the checkpoint it was made for
 * ({@link SharedStateRegistry#uploadPrefix}), and a task refers to the uploads of a checkpoint only once that
 * checkpoint completed. So when checkpoint {@code M} completes, the uploads for the ids between the previous
 * completed checkpoint and {@code M} are of checkpoints that will never complete (at most one checkpoint is pending
 * at a time), and any of them that the {@link SharedStateRegistry} does not know is abandoned. The first range of a
 * job master starts above the newest checkpoint it recovered, so it covers what the previous leader left pending.
 * The listing runs on the I/O executor after the completion, never while a job master recovers; the registry is
 * asked on the main thread; the deletes run on the I/O executor ({@link CheckpointDiscarder#deleteShared}), and
 * until confirmed they are among the registry's deletes that the next metadata names, so a new leader repeats them.
 * A listing that fails is logged; those files then stay until the job's checkpoints are discarded.
 *
 * <p>The checkpoints of a previous leader that never completed also leave files in their own directories
 * ({@code chk-<id>/}: the state files of the heap backend, RocksDB's manifest and options), which only that leader
 * would have discarded on their abort. So for the ids below the first checkpoint this job master triggered
 * ({@link #triggered}), and only those, the directories that have files are discarded as well (unless the
 * recovered store retains the id, which it does not above the recovered one). The ids of this job master's own
 * checkpoints are left alone: it discards those it aborts, and a checkpoint whose pointer landed after its
 * timeout, or is in doubt, is retained with its directory. An upload of a
 * process that still runs but was given up (a task manager cut off by a partition) may land after the listing:
 * its acknowledgement, if one comes, removes it ({@link CheckpointDiscarder#discardLateUpload}).
 *
 * <p>Threading: {@link #completed} and {@link #triggered} on the job master's main thread (checked).
 */
final class AbandonedUploads {
    private static final Logger LOG = LoggerFactory.getLogger(AbandonedUploads.class);

    private final JobId jobId;
    private final CheckpointStorage storage;
    private final MainThreadExecutor mainThread;
    private final Executor ioExecutor;
    private final SharedStateRegistry sharedState;
    private final Consumer<List<String>> deleter;
    private final LongPredicate retained;
    /** Every id up to this one is a completed checkpoint or was looked at. */
    private long sweptThrough;
    /**
     * The first checkpoint id this job master triggered: the ids below it and above the recovered one are a previous
     * leader's.
     */
    private long firstTriggered = Long.MAX_VALUE;

    /**
     * @param recoveredThrough the highest checkpoint id the job master recovered (the newest retained checkpoint,
     *                         or the one a new job starts from), 0 for none: uploads of ids above it are looked at
     * @param deleter          deletes shared files and confirms them to the registry; run on the I/O executor
     * @param retained         whether the checkpoint store retains a checkpoint id; asked on the main thread
     */
    AbandonedUploads(JobId jobId, CheckpointStorage storage, MainThreadExecutor mainThread, Executor ioExecutor,
                     SharedStateRegistry sharedState, long recoveredThrough, Consumer<List<String>> deleter,
                     LongPredicate retained) {
        this.jobId = jobId;
        this.storage = storage;
        this.mainThread = mainThread;
        this.ioExecutor = ioExecutor;
        this.sharedState = sharedState;
        this.sweptThrough = Math.max(0, recoveredThrough);
        this.deleter = deleter;
        this.retained = retained;
    }

    /** This job master triggered checkpoint {@code checkpointId}. */
    void triggered(long checkpointId) {
        mainThread.assertRunningInMainThread();
        firstTriggered = Math.min(firstTriggered, checkpointId);
    }

    /** Checkpoint {@code checkpointId} completed: the abandoned uploads of the ids before it are deleted. */
    void completed(long checkpointId) {
        mainThread.assertRunningInMainThread();
        long first = sweptThrough + 1;
        long last = checkpointId - 1;
        sweptThrough = Math.max(sweptThrough, checkpointId);
        if (first > last) {
            return;
        }
        long lastInherited = Math.min(last, firstTriggered - 1);
        if (first <= lastInherited) {
            ioExecutor.execute(() -> discardInherited(first, lastInherited));
        }
        ioExecutor.execute(() -> {
            List<String> found;
            try {
                found = storage.listSharedUploads(jobId, first, last);
            } catch (RuntimeException e) {
                LOG.warn("Could not list the shared state files of job {}'s checkpoints {} to {}, which did not"
                        + " complete, in {}: files a crashed upload left there stay until the job's checkpoints are"
                        + " discarded ({})", jobId, first, last, storage.location(), e.toString());
                return;
            }
            if (found.isEmpty()) {
                return;
            }
            try {
                mainThread.execute(() -> deleteAbandoned(found, first, last));
            } catch (RuntimeException e) {
                LOG.debug("Job {}: the job master ended before the abandoned uploads were looked at", jobId);
            }
        });
    }

    /** On the I/O executor: finds the directories of a previous leader's checkpoints that never completed. */
    private void discardInherited(long first, long last) {
        List<Long> withFiles;
        try {
            withFiles = storage.checkpointsWithFiles(jobId, first, last);
        } catch (RuntimeException e) {
            LOG.warn("Could not list the directories of job {}'s checkpoints {} to {}, which a previous leader"
                    + " triggered and which did not complete, in {}: their files stay until the job's checkpoints are"
                    + " discarded ({})", jobId, first, last, storage.location(), e.toString());
            return;
        }
        if (withFiles.isEmpty()) {
            return;
        }
        try {
            mainThread.execute(() -> {
                List<Long> ids = withFiles.stream().filter(id -> !retained.test(id)).toList();
                if (ids.isEmpty()) {
                    return;
                }
                LOG.info("Job {}: discarding checkpoint(s) {}, which a previous leader triggered and which did not"
                        + " complete (their own directories in {})", jobId, ids, storage.location());
                ioExecutor.execute(() -> ids.forEach(this::discardDirectory));
            });
        } catch (RuntimeException e) {
            LOG.debug("Job {}: the job master ended before the directories of checkpoints {} to {} were looked at",
                    jobId, first, last);
        }
    }

    private void discardDirectory(long checkpointId) {
        try {
            storage.discard(jobId, checkpointId);
        } catch (RuntimeException e) {
            LOG.warn("Could not discard checkpoint {} of job {} from {}, which did not complete; its files stay until"
                    + " the job's checkpoints are discarded: {}", checkpointId, jobId, storage.location(),
                    e.toString());
        }
    }

    private void deleteAbandoned(List<String> found, long first, long last) {
        List<String> referenced = found.stream().filter(sharedState::isReferenced).toList();
        if (!referenced.isEmpty()) {
            // A checkpoint whose pointer landed after its timeout, or is in doubt, is retained without counting as
            // completed; its files are registered. No other registered checkpoint refers to these ids' uploads.
            LOG.info("Job {}: {} shared state file(s) uploaded for checkpoints {} to {} are kept: a retained checkpoint"
                    + " (persisted after its timeout, or in doubt) refers to them", jobId, referenced.size(), first,
                    last);
        }
        // Files already being deleted (the uploads acknowledgements named) are left to that delete.
        List<String> abandoned = sharedState.abandoned(found);
        if (abandoned.isEmpty()) {
            return;
        }
        LOG.info("Job {}: deleting {} shared state file(s) uploaded for checkpoints {} to {}, which did not complete,"
                + " that no acknowledgement named (an upload a crash cut short)", jobId, abandoned.size(), first, last);
        ioExecutor.execute(() -> deleter.accept(abandoned));
    }
}
